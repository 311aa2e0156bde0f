"""The scripted model servers the real agents talk to (tests/support/model_servers.py) run in kandev-tui's terminal."""

from __future__ import annotations

from ..support.model_servers import AnthropicServer


def test_a_request_whose_client_went_away_prints_nothing_over_the_app_and_other_errors_wait_for_the_end(capfd):
    """A cancelled turn's client goes away while its answer streams: the server printed the broken pipe's traceback
    into the terminal the app draws in (tmux), over its screen. Nothing is printed while it serves; an error that is
    not a client gone is said once it stops."""
    server = AnthropicServer([]).start()
    for error in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset"), ValueError("a bad script")):
        try:
            raise error
        except Exception:  # noqa: BLE001 - as socketserver calls it: from the request's except clause
            server.httpd.handle_error(None, ("127.0.0.1", 5555))
    assert capfd.readouterr().err == ""
    server.stop()
    said = capfd.readouterr().err
    assert said.count("scripted server:") == 1 and "ValueError: a bad script" in said

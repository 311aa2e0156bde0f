"""`kandev-tui serve`: the app in a real headless browser (Debian's Chromium over the DevTools protocol), one app
process per browser tab, and the errors said before anything listens."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kandev_tui.transcript import Store

from ..support.app_helpers import DEMO_RECORDING
from ..support.browser import CHROMIUM, Browser
from ..support.procs import free_port, wait_for_port
from ..support.procs import live_pids, wait_until

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")
KANDEV_TUI = [sys.executable, "-m", "kandev_tui"]


def app_processes(marker: str) -> list[int]:
    """The kandev-tui apps textual-serve started whose command line holds ``marker`` (not the server itself)."""
    def an_app(_pid: int, cmdline: bytes) -> bool:
        line = b" ".join(cmdline.split(b"\0")).decode(errors="replace")
        return marker in line and "-m kandev_tui" in line and " serve" not in line

    return live_pids(an_app)


class Served:
    """``kandev-tui serve`` on a free port; ``url`` is the address it printed, with its secret."""

    def __init__(self, tmp_path: Path, *command: str, cwd: Path | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}/"
        self.log = tmp_path / "serve.log"
        env = dict(os.environ, KANDEV_TUI_DB=str(tmp_path / "sessions.db"), KANDEV_TUI_CONFIG=str(tmp_path / "config.toml"))
        self.process = subprocess.Popen([*KANDEV_TUI, "serve", "--port", str(self.port), "--", *command], env=env,
                                        stdout=self.log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
                                        cwd=cwd)
        wait_for_port(self.port)
        wait_until(lambda: "?token=" in self.log.read_text(), 30, "the address with its secret")
        line = next(line for line in self.log.read_text().splitlines() if "?token=" in line)
        self.url = line.split("open ", 1)[1].split(" ", 1)[0]
        self.secret = self.url.split("?token=", 1)[1]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def open_page(served: Served, *expect: str) -> Browser:
    """A tab on the served address, once the page has received every one of ``expect``."""
    browser = Browser()
    browser.navigate(served.url)
    for text in expect:
        browser.wait_for(lambda text=text: text in browser.text_received(), 60, f"{text!r} in the page")
    return browser


def test_a_replay_in_a_real_browser_draws_the_transcript_takes_keys_and_runs_one_app_per_tab(tmp_path):
    from PIL import Image

    recording = tmp_path / "served-demo.jsonl"  # a path of its own: the apps started for it are told apart by it
    recording.write_bytes(DEMO_RECORDING.read_bytes())
    served = Served(tmp_path, "replay", str(recording))
    first = second = None
    try:
        first = open_page(served, "end of turn", "Ask me anything else")  # the replay's end, drawn in the page
        assert len(app_processes(str(recording))) == 1

        second = open_page(served, "end of turn")  # another tab: its own app, independent of the first
        assert len(app_processes(str(recording))) == 2
        second.close()
        second = None
        wait_until(lambda: len(app_processes(str(recording))) == 1, 30, "the closed tab's app to end")

        shot = first.screenshot(tmp_path / "transcript.png")
        image = Image.open(io.BytesIO(shot)).convert("RGB")
        assert image.size[0] >= 1000 and len(image.resize((160, 100)).getcolors(16000)) > 20  # drawn, not blank

        first.click(600, 300)  # the terminal takes the keyboard focus, as a user's first click gives it
        before = len(first.received)
        first.key("F1", "F1", key_code=112)
        first.wait_for(lambda: "F1 to close" in first.received[before:].decode("utf-8", "replace"), 30, "the help")
        first.screenshot(tmp_path / "help.png")
        before = len(first.received)
        first.key("Escape", "Escape", key_code=27)
        first.wait_for(lambda: "Ask me anything else" in first.received[before:].decode("utf-8", "replace"), 30,
                       "the transcript again")
    finally:
        for browser in (first, second):
            if browser is not None:
                browser.close()
        wait_until(lambda: not app_processes(str(recording)), 30, "every app to end with its tab")
        served.stop()


def close_the_tab_mid_session(served: Served, expect: tuple[str, ...], alive, count: int) -> None:
    """A tab opened until the page has every one of ``expect``, with ``count`` processes ``alive()``; then closed,
    and every one of them ends with it; the server is stopped in any case."""
    browser = None
    try:
        browser = open_page(served, *expect)
        assert len(alive()) == count
        browser.close()
        browser = None
        wait_until(lambda: not alive(), 30, "the app (and its agents) to end with the tab")
    finally:
        if browser is not None:
            browser.close()
        served.stop()


def test_a_browser_that_goes_away_mid_session_ends_its_app_and_loses_nothing(tmp_path):
    served = Served(tmp_path, "demo")
    # the demo agent is live and has sent its panel when the tab goes away in the middle of the session
    close_the_tab_mid_session(served, ("Build summary",), lambda: app_processes("kandev_tui demo"), 1)
    store = Store(tmp_path / "sessions.db", create=False)
    try:
        (session,) = store.sessions()
        assert session["state"] != "running"  # closed as a quit closes it
        kinds = {item.kind for item in store.items(session["id"])}
        assert {"user_message", "agent_message", "tool_call"} <= kinds
    finally:
        store.close()


def test_each_tab_runs_the_multi_session_app(tmp_path):
    """No command: a tab shows the sessions list. With two presets: each tab runs both agents side by side in its
    one app (the status line says the other session waits); closing the tab ends the app and both agents, and both
    sessions are stored."""
    workspace = tmp_path / "work"
    workspace.mkdir()
    home = Served(tmp_path)
    browser = None
    try:
        browser = open_page(home, "No live session: ctrl+n starts one.")
    finally:
        if browser is not None:
            browser.close()
        home.stop()
    served = Served(tmp_path, "run", "--preset", "demo", "--preset", "demo", "--prompt", "Check the build",
                    cwd=workspace)
    ours = lambda: [pid for pid in live_pids(lambda _pid, text: str(tmp_path).encode() in text, read="environ")  # noqa: E731
                    if pid != served.process.pid]
    # the first on screen, the second said; the tab's app and its two agents, all ended with the tab
    close_the_tab_mid_session(served, ("asks to edit", "+1 · 1 waiting"), ours, 3)
    store = Store(tmp_path / "sessions.db", create=False)
    try:
        rows = store.sessions()
        assert len(rows) == 2 and {row["workspace"] for row in rows} == {str(workspace.resolve())}
        assert all(row["state"] != "running" for row in rows)
    finally:
        store.close()


def run_serve(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, KANDEV_TUI_DB=str(tmp_path / "sessions.db"))
    return subprocess.run([*KANDEV_TUI, "serve", *args], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("args, said", [
    (("--host", "0.0.0.0"), "--host 0.0.0.0 is reachable from other machines"),
    (("--", "sessions"), "'sessions' does not open the app"),
    (("--", "run", "--headless", "--prompt", "x", "--", "agent"), "--headless has no screen to serve"),
    (("--", "replay", "missing.jsonl"), "missing.jsonl: no such file"),
    (("--", "open", "nosuchid"), "sessions.db: does not exist"),
    (("--port", "0"), "kandev-tui serve: --port 0: must be between 1 and 65535"),
    (("--", "replay", str(Path(__file__).parent), "--stats", "/nonexistent-dir/stats.json"),
     "kandev-tui replay: --stats /nonexistent-dir/stats.json: no such directory"),
    (("--", "run", "--record", __file__, "--", "agent"), f"kandev-tui run: --record {__file__}: already exists"),
])
def test_serve_says_what_is_wrong_before_it_listens(args, said, tmp_path):
    done = run_serve(*args, tmp_path=tmp_path)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_serve_on_a_port_in_use_says_so_in_one_line(tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_serve("--port", str(port), tmp_path=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == \
        f"kandev-tui serve: port {port} is in use on 127.0.0.1; choose another with --port"


def test_public_serving_warns_that_plain_http_shows_the_secret_and_prints_an_address_a_browser_can_reach(tmp_path):
    import socket
    import urllib.error
    import urllib.request

    port = free_port()
    env = dict(os.environ, KANDEV_TUI_DB=str(tmp_path / "sessions.db"))
    process = subprocess.Popen([*KANDEV_TUI, "serve", "--public", "--host", "0.0.0.0", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for_port(port)
        with pytest.raises(urllib.error.HTTPError) as refused:  # --public needs the secret as well
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
        assert refused.value.code == 403
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    lines = stderr.strip().splitlines()
    assert len(lines) == 2 and "plain HTTP" in lines[0] and "SSH port forwarding" in lines[0]
    assert lines[1].startswith(f"kandev-tui serve: open http://{socket.gethostname()}:{port}/?token=")
    assert "0.0.0.0" not in lines[1] and "exec " not in stderr  # not textual-serve's banner


def test_the_page_and_its_websocket_are_refused_without_the_secret_and_ask_no_other_server(tmp_path):
    """In Chromium: the address without its secret is refused (403) and starts no app; the printed address opens the
    app, whose cookie lets a reload in; a WebSocket without the cookie, or from another origin, is refused; and the
    page asks nothing of any server but this one (it loaded a web font's stylesheet from the internet before)."""
    import json
    import urllib.error
    import urllib.request

    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    recording = tmp_path / "secret-demo.jsonl"
    recording.write_bytes(DEMO_RECORDING.read_bytes())
    served = Served(tmp_path, "replay", str(recording))
    browser = None
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(served.base, timeout=10)
        assert refused.value.code == 403
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(served.base + "?token=" + "x" * len(served.secret), timeout=10)
        assert refused.value.code == 403
        browser = Browser()
        browser.navigate(served.base)
        browser.wait_for(lambda: "needs the address" in (browser.evaluate("document.body.innerText") or ""), 30,
                         "the refusal in the page")
        assert not app_processes(str(recording))
        browser.navigate(served.url)
        browser.wait_for(lambda: "Ask me anything else" in browser.text_received(), 60, "the app in the page")
        assert len(app_processes(str(recording))) == 1
        before = len(browser.received)
        browser.navigate(served.base)  # no token in the address: the cookie carries it
        browser.wait_for(lambda: "Ask me anything else" in browser.received[before:].decode("utf-8", "replace"), 60,
                         "the app again, by its cookie")
        ws = served.base.replace("http", "ws") + "ws?width=80&height=24"
        for headers in ({}, {"Cookie": f"kandev-tui-{served.port}={served.secret}", "Origin": "http://evil.test"}):
            with pytest.raises(InvalidStatus) as status:
                connect(ws, additional_headers=headers, open_timeout=10).close()
            assert status.value.response.status_code == 403
        asked = {event["params"]["request"]["url"] for event in browser.events
                 if event.get("method") == "Network.requestWillBeSent"}
        asked |= {event["params"]["url"] for event in browser.events
                  if event.get("method") == "Network.webSocketCreated"}
        others = {url for url in asked if not url.startswith((served.base, served.base.replace("http", "ws")))
                  and not url.startswith("data:")}
        assert asked and not others, json.dumps(sorted(others))
    finally:
        if browser is not None:
            browser.close()
        wait_until(lambda: not app_processes(str(recording)), 30, "every app to end with its tab")
        served.stop()
    log = served.log.read_text()
    assert log.count(served.secret) == 1  # said once, in the address; never in a log line
@pytest.mark.reliability("Serve", "the secret in the address bar and history, a cached page, a Referer to a linked "
                         "site, a linked site's handle on the page (window.opener)", cases=4,
                         held="redirected to / with the cookie; no-store, no-referrer, COOP same-origin; links "
                              "opened noopener")
def test_the_secret_leaves_the_address_and_the_page_keeps_itself_to_itself(tmp_path):
    import http.client

    recording = tmp_path / "demo.jsonl"
    recording.write_bytes(DEMO_RECORDING.read_bytes())
    served = Served(tmp_path, "replay", str(recording))
    try:
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
        connection.request("GET", f"/?token={served.secret}")
        moved = connection.getresponse()
        moved.read()
        cookie = moved.getheader("Set-Cookie") or ""
        assert moved.status == 302 and moved.getheader("Location") == "/"
        assert cookie.startswith(f"kandev-tui-{served.port}={served.secret}") and "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        connection.request("GET", "/", headers={"Cookie": cookie.split(";", 1)[0]})
        page = connection.getresponse()
        body = page.read().decode()
        for answer in (moved, page):
            assert answer.getheader("Cache-Control") == "no-store"
            assert answer.getheader("Referrer-Policy") == "no-referrer"
            assert answer.getheader("Cross-Origin-Opener-Policy") == "same-origin"
        assert page.status == 200 and served.secret not in body
        assert "noopener,noreferrer" in body and body.index("textual.js") < body.index("noopener")
        connection.close()
    finally:
        served.stop()


def test_a_link_an_agent_asks_to_open_opens_in_a_new_tab_of_the_browser_once_the_user_says_so(tmp_path, monkeypatch):
    """A URL question (elicitation) under serve: the page shows the link's host; enter on "Open" opens the link in a
    new tab of the user's browser (with no handle on the app's page: noopener), and the agent hears "accept"."""
    import json

    from ..support.kit import KIT

    (tmp_path / "w").mkdir()
    url = "https://login.example.com/device?code=42"
    monkeypatch.setenv("DIALECT", json.dumps({"steps": [{"op": "elicit", "complete": True, "params": {
        "mode": "url", "message": "Sign in to continue", "url": url, "elicitationId": "e-1"}}]}))
    served = Served(tmp_path, "run", "--prompt", "go", "--", *KIT, cwd=tmp_path / "w")
    browser = None
    try:
        browser = open_page(served, "Sign in to continue", "login.example.com")
        browser.call("Target.setDiscoverTargets", discover=True)
        assert not any(url in json.dumps(e) for e in browser.events)  # nothing opened before the user says so
        browser.click(1200, 8)  # the terminal takes the keyboard focus (on the status line: nothing to press there)
        browser.wait_for(lambda: browser.evaluate("document.activeElement && document.activeElement.tagName") not in (
            None, "BODY"), 10, "the terminal focused")
        browser.key("Enter", "Enter", "\r", 13)  # "Open login.example.com" has the focus
        browser.wait_for(lambda: any(e.get("method") == "Target.targetInfoChanged"
                                     and e["params"]["targetInfo"].get("url") == url for e in browser.events),
                         30, "a new tab on the link")
        opened = [e["params"]["targetInfo"] for e in browser.events if e.get("method") == "Target.targetInfoChanged"
                  and e["params"]["targetInfo"].get("url") == url]
        assert all(info.get("canAccessOpener") is not True for info in opened), opened  # noopener: no handle on us
        browser.wait_for(lambda: '"accept"' in browser.text_received(), 30, "the agent's answer")
    finally:
        if browser is not None:
            browser.close()
        served.stop()

"""The install anyone can reproduce: the wheel, built from this checkout, in a fresh venv at the locked versions."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

from ..support import CHECKOUT
from ..support.app_helpers import DEMO_RECORDING

ROOT = CHECKOUT


@pytest.mark.timeout(600)
def test_the_wheel_installs_in_a_clean_venv_and_runs(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                            str(tmp_path / "dist"), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("kandev_tui-*.whl"))
    venv.create(tmp_path / "venv", with_pip=True)
    pip = [str(tmp_path / "venv" / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    installed = subprocess.run([*pip, "-c", str(ROOT / "requirements.lock"), str(wheel)], capture_output=True,
                               text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr[-2000:]
    kandev = str(tmp_path / "venv" / "bin" / "kandev-tui")
    from kandev_tui import __version__

    version = subprocess.run([kandev, "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.strip() == f"kandev-tui {__version__}"
    assert "demo" in subprocess.run([kandev, "demo", "--help"], capture_output=True, text=True, timeout=60).stdout
    out = tmp_path / "demo.txt"
    shot = subprocess.run([kandev, "snapshot", str(DEMO_RECORDING), "--size", "80x24", "-o", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert shot.returncode == 0, shot.stderr
    assert "end of turn" in out.read_text()  # the installed package has its styles, demo workspace and renderers
    assert "--public" in subprocess.run([kandev, "serve", "--help"], capture_output=True, text=True, timeout=60).stdout
    _serves_a_page(kandev, tmp_path)
    listed = subprocess.run([str(tmp_path / "venv" / "bin" / "python"), "-c",
                             "from kandev_tui.renderers import Registry; print(sorted(r.id for r in "
                             "Registry.from_entry_points().renderers)[:3])"], capture_output=True, text=True, timeout=60)
    assert "edit" in listed.stdout  # the entry points came with the wheel


def _serves_a_page(kandev: str, tmp_path: Path) -> None:
    """``kandev-tui serve`` of the installed wheel listens and serves its page (textual-serve came with it)."""
    import os
    import signal
    import urllib.request

    from ..support.procs import free_port, wait_for_port
    from ..support.procs import wait_until

    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen([kandev, "serve", "--port", str(port), "--", "replay", str(DEMO_RECORDING)],
                                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for_port(port)
        wait_until(lambda: "?token=" in log.read_text(), 30, "the address with its secret")
        secret = log.read_text().split("?token=", 1)[1].split()[0]
        import http.cookiejar

        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        # as a browser: the address with its secret sets the cookie and goes back to /, which the cookie opens
        page = browser.open(f"http://127.0.0.1:{port}/?token={secret}", timeout=30).read().decode()
        assert "kandev-tui replay" in page and "/ws" in page
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)


@pytest.mark.timeout(900)
def test_pipx_and_uv_tool_install_give_a_working_command(tmp_path):
    """``pipx install`` and ``uv tool install`` of the wheel (pipx and uv themselves from PyPI, into a scratch venv),
    at the locked versions: each gives a kandev-tui that runs."""
    import os

    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
                            str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = str(next((tmp_path / "dist").glob("kandev_tui-*.whl")))
    venv.create(tmp_path / "tools", with_pip=True)
    tools = tmp_path / "tools" / "bin"
    got = subprocess.run([str(tools / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", "pipx",
                          "uv"], capture_output=True, text=True, timeout=600)
    assert got.returncode == 0, got.stderr[-2000:]
    lock = str(ROOT / "requirements.lock")
    env = {**os.environ, "PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(tmp_path / "pipx-bin"),
           "UV_TOOL_DIR": str(tmp_path / "uv-tools"), "UV_TOOL_BIN_DIR": str(tmp_path / "uv-bin"),
           "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    for command, binary in (([str(tools / "pipx"), "install", "--pip-args", f"-c {lock}", wheel], "pipx-bin"),
                            ([str(tools / "uv"), "tool", "install", "--constraints", lock, wheel], "uv-bin")):
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
        assert done.returncode == 0, (command[0], done.stderr[-2000:])
        kandev = str(tmp_path / binary / "kandev-tui")
        assert subprocess.run([kandev, "--version"], capture_output=True, text=True, timeout=60).stdout.startswith(
            "kandev-tui ")
        assert "snapshot" in subprocess.run([kandev, "--help"], capture_output=True, text=True, timeout=60).stdout
def test_the_suites_downloads_go_where_xdg_cache_home_says():
    """The real agents, the Kandev runtime and npm's cache of them (1.7 GB) go under $XDG_CACHE_HOME/kandev-tui when
    it is set (they went under ~/.cache whatever it said); $KANDEV_TEST_CACHE still wins."""
    import json
    import os

    probe = ("import json; from tests.support import real_agents, kandev_backend, installs; "
             "print(json.dumps([str(real_agents.CACHE), str(kandev_backend.CACHE), installs.npm_cache()[1]]))")
    root = CHECKOUT
    base = {k: v for k, v in os.environ.items() if k not in ("KANDEV_TEST_CACHE", "KANDEV_AGENTS_CACHE",
                                                              "KANDEV_RUNTIME_CACHE", "XDG_CACHE_HOME")}
    for env, where in (({"XDG_CACHE_HOME": "/xdg/cache"}, "/xdg/cache/kandev-tui/"),
                       ({"XDG_CACHE_HOME": "/xdg/cache", "KANDEV_TEST_CACHE": "/tests/cache"}, "/tests/cache/")):
        said = subprocess.run([sys.executable, "-c", probe], cwd=root, env={**base, **env}, capture_output=True,
                              text=True, timeout=60, check=True).stdout
        assert all(path.startswith(where) for path in json.loads(said)), said

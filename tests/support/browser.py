"""A real headless browser for the tests: Debian's Chromium, driven over the Chrome DevTools protocol.

Chromium listens on ``--remote-debugging-port=0`` and writes the port it chose to ``DevToolsActivePort`` in its
profile directory; :class:`Browser` connects to the first page's WebSocket and sends protocol commands
(``Page.navigate``, ``Input.dispatchKeyEvent``, ``Page.captureScreenshot``…). It also keeps every WebSocket frame
the page receives (``Network.webSocketFrameReceived``): under ``kandev-tui serve`` those carry what the app draws,
which is how a test reads the text of a terminal drawn on a canvas.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    def __init__(self, width: int = 1280, height: int = 800) -> None:
        from websockets.sync.client import connect

        assert CHROMIUM, "chromium is not installed (apt-get install chromium)"
        self.profile = Path(tempfile.mkdtemp(prefix="kandev-chromium-"))
        self.process = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not start its DevTools server")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        page = next(p for p in pages if p.get("type") == "page")
        self.ws = connect(page["webSocketDebuggerUrl"], max_size=None, open_timeout=10).__enter__()
        self._id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self._lock = threading.Condition()
        self.received = bytearray()  # the payloads of every WebSocket frame the page received, in order
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.call("Network.enable")
        self.call("Page.enable")

    def _read(self) -> None:
        try:
            while True:
                message = json.loads(self.ws.recv())
                with self._lock:
                    if "id" in message:
                        self._replies[message["id"]] = message
                    else:
                        self.events.append(message)
                        if message.get("method") == "Network.webSocketFrameReceived":
                            response = message["params"]["response"]
                            data = response.get("payloadData", "")
                            self.received += base64.b64decode(data) if response.get("opcode") == 2 else data.encode()
                    self._lock.notify_all()
        except Exception:  # noqa: BLE001 - the browser closed
            pass

    def call(self, method: str, timeout: float = 30, **params: Any) -> dict[str, Any]:
        with self._lock:
            self._id += 1
            ident = self._id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        with self._lock:
            if not self._lock.wait_for(lambda: ident in self._replies, timeout):
                raise TimeoutError(f"{method}: no answer in {timeout} s")
            reply = self._replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_for(self, condition: Callable[[], bool], timeout: float = 60, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        with self._lock:
            while not condition():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"waited {timeout} s for {what or 'the browser'}")
                self._lock.wait(min(left, 0.5))

    def text_received(self) -> str:
        """What the page received, as text (escape sequences and the protocol's framing left in)."""
        return self.received.decode("utf-8", "replace")

    def navigate(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str) -> Any:
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True).get("result", {}).get("value")

    def key(self, key: str, code: str, text: str = "", key_code: int = 0) -> None:
        for kind in ("keyDown", "keyUp"):
            params: dict[str, Any] = {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": key_code}
            if text and kind == "keyDown":
                params["text"] = text
            self.call("Input.dispatchKeyEvent", **params)

    def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, path: Path) -> bytes:
        data = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        path.write_bytes(data)
        return data

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:  # noqa: BLE001
            pass
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env

"""One WebSocket connection to a Kandev backend: requests with answers, notifications (headless).

Every frame is ``{id, type: request|response|notification|error, action, payload,
timestamp}``. A request waits for the frame with its id; an ``error`` frame raises
:class:`KandevError` with Kandev's code and message. Notifications go to a
callback in arrival order. When the connection drops, waiting requests fail and
:attr:`closed` is set; reconnecting is the caller's business (see ``attach``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.parse
import uuid
from typing import Any, Callable

from kandev_tui.base.jsonutil import of_type

log = logging.getLogger(__name__)

DEFAULT_URL = "ws://127.0.0.1:38429/ws"
Notification = Callable[[str, dict[str, Any]], None]


class KandevError(Exception):
    """Something Kandev refused or could not do, said plainly."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


def normalize_url(url: str) -> str:
    """``host:port`` → ``ws://host:port/ws``; ``http(s)://`` → ``ws(s)://``; a missing path → ``/ws``."""
    url = url.strip()
    if "://" not in url:
        url = "ws://" + url
    parts = urllib.parse.urlsplit(url)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss"):
        raise KandevError(f"{url!r} is not a Kandev address: use ws://HOST:PORT/ws (default {DEFAULT_URL})")
    if not parts.hostname:
        raise KandevError(f"{url!r} has no host: use ws://HOST:PORT/ws (default {DEFAULT_URL})")
    path = parts.path if parts.path not in ("", "/") else "/ws"
    return urllib.parse.urlunsplit((scheme, parts.netloc, path, parts.query, ""))


def backend_key(url: str) -> str:
    """What identifies a backend in the cache: ``host:port`` (tokens and paths left out)."""
    parts = urllib.parse.urlsplit(normalize_url(url))
    port = parts.port or (443 if parts.scheme == "wss" else 80)
    return f"{parts.hostname}:{port}"


def http_base(url: str) -> str:
    parts = urllib.parse.urlsplit(normalize_url(url))
    return urllib.parse.urlunsplit(({"ws": "http", "wss": "https"}[parts.scheme], parts.netloc, "", "", ""))


class KandevConnection:
    def __init__(self, url: str, token: str | None = None, on_notification: Notification | None = None) -> None:
        self.url = normalize_url(url)
        self.token = token or None
        self.on_notification = on_notification
        self.closed = asyncio.Event()
        self.close_reason = ""
        self._ws: Any = None
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None

    async def connect(self, timeout: float = 10) -> None:
        import websockets  # deferred: only attach needs it

        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        try:
            self._ws = await asyncio.wait_for(
                websockets.connect(self.url, additional_headers=headers, max_size=None, open_timeout=timeout,
                                   ping_interval=20, ping_timeout=20),
                timeout + 1)
        except asyncio.TimeoutError:
            raise KandevError(f"no answer from {self.url} within {timeout:g} s: is Kandev running there?",
                              "timeout") from None
        except OSError as exc:
            raise KandevError(f"cannot reach {self.url}: {exc.strerror or exc}. Is Kandev running? "
                              "Start it, or give its address (kandev-tui attach ws://HOST:PORT/ws).",
                              "unreachable") from None
        except websockets.InvalidStatus as exc:
            status = exc.response.status_code
            hint = " Check the token (--token-file, or KANDEV_TOKEN)." if status in (401, 403) else ""
            raise KandevError(f"{self.url} refused the connection (HTTP {status}).{hint}", "refused") from None
        except (websockets.InvalidURI, websockets.InvalidHandshake, ValueError) as exc:
            raise KandevError(f"{self.url} is not a Kandev WebSocket: {exc}", "handshake") from None
        except Exception as exc:  # noqa: BLE001 - e.g. the peer closed during the handshake
            raise KandevError(f"the connection to {self.url} failed: {type(exc).__name__}: {exc}", "dropped") from None
        self.closed.clear()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        import websockets

        reason = "the connection closed"
        try:
            async for raw in self._ws:
                try:
                    frame = json.loads(raw)
                except ValueError:
                    log.warning("ignoring a frame that is not JSON: %.200r", raw)
                    continue
                if not isinstance(frame, dict):
                    continue
                waiter = self._waiting.pop(of_type(frame, "id", str, ""), None)
                if waiter is not None and frame.get("type") in ("response", "error"):
                    if not waiter.done():
                        waiter.set_result(frame)
                elif frame.get("type") == "notification" and self.on_notification is not None:
                    payload = of_type(frame, "payload", dict, {})
                    try:
                        self.on_notification(str(frame.get("action", "")), payload)
                    except Exception:  # noqa: BLE001 - one bad notification never stops the connection
                        log.exception("handling %s failed", frame.get("action"))
        except websockets.ConnectionClosed as exc:
            reason = f"the connection closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})"
        except Exception as exc:  # noqa: BLE001
            reason = f"the connection failed: {exc}"
        finally:
            self.close_reason = reason
            for waiter in self._waiting.values():
                if not waiter.done():
                    waiter.set_exception(KandevError(f"{reason} before Kandev answered", "closed"))
            self._waiting.clear()
            self.closed.set()

    async def request(self, action: str, payload: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        """Send a request; return the answer's payload or raise :class:`KandevError`."""
        if self._ws is None or self.closed.is_set():
            raise KandevError("not connected to Kandev", "closed")
        request_id = str(uuid.uuid4())
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiter
        try:
            await self._ws.send(json.dumps({"id": request_id, "type": "request", "action": action, "payload": payload}))
            frame = await asyncio.wait_for(waiter, timeout)
        except asyncio.TimeoutError:
            raise KandevError(f"Kandev did not answer {action} within {timeout:g} s", "timeout") from None
        except KandevError:
            raise
        except Exception as exc:  # noqa: BLE001 - a send on a dying socket
            raise KandevError(f"{action} could not be sent: {exc}", "closed") from None
        finally:
            self._waiting.pop(request_id, None)
        answer = of_type(frame, "payload", dict, {})
        if frame.get("type") == "error":
            raise KandevError(f"Kandev refused {action}: {answer.get('message') or 'no reason given'}",
                              str(answer.get("code") or ""))
        return answer

    async def close(self) -> None:
        if self._ws is not None:
            try:
                await asyncio.wait_for(self._ws.close(), 3)
            except Exception:  # noqa: BLE001
                pass
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 3)
            except Exception:  # noqa: BLE001
                self._reader.cancel()

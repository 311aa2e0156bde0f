"""``kandev-tui serve``: textual-serve with a secret, and a page that asks nothing of any other server.

textual-serve has no authentication: on a shared machine any local user could open the page and drive an agent that
runs commands as its owner. Each run makes a random secret (:func:`new_secret`); the page and its WebSocket are
refused (HTTP 403) without it. It is given once, in the URL printed to the terminal (``/?token=…``, as Jupyter
does), and kept in a cookie by the first load (HttpOnly, SameSite=Strict, named after the port), so reloads and the
WebSocket carry it, and the address is then taken back to ``/`` (a redirect) so that the secret leaves the address bar
and the history; a WebSocket opened from another origin is refused too. Nothing is logged with it: the request log
is not kept. The page is never cached, sends no Referer, shares no window with another origin's page
(``Cross-Origin-Opener-Policy``), and the tabs it opens get no ``window.opener``.

The page is textual-serve's own template, less its one third-party request (a stylesheet from a web font service):
the font it named is in textual-serve's static files, and is served from there.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web
from textual_serve.server import Server

WEB_FONT = '<link\n      rel="stylesheet"\n      href="https://fonts.googleapis.com/css?family=Roboto%20Mono"\n    />'
LOCAL_FONT = ('<style>@font-face { font-family: "Roboto Mono"; '
              'src: url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf"); }</style>')
WILDCARDS = ("0.0.0.0", "::", "")
# a tab the app opens (a link an agent asked the user to open) gets no handle on this page: window.opener would let
# the linked site navigate the kandev-tui tab (to a look-alike login, say); textual.js opens links with window.open
NO_OPENER = ('<script>(function () { var open = window.open; window.open = function (url, target, features) {'
             ' if (target === "_self") { return open.call(window, url, target, features); }'
             ' open.call(window, url, target || "_blank", (features ? features + "," : "") + "noopener,noreferrer");'
             ' return null; }; })();</script>')
TEXTUAL_JS = '<script src="{{ config.static.url }}js/textual.js"></script>'
# every answer of the page's own: never cached, never a Referer to a site it links to, no window shared with another
# origin's
PRIVATE_HEADERS = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                   "Cross-Origin-Opener-Policy": "same-origin", "X-Content-Type-Options": "nosniff"}


def new_secret() -> str:
    return secrets.token_urlsafe(24)


def page_template(folder: Path) -> Path:
    """textual-serve's page template, written into ``folder`` with the web font's stylesheet replaced by the same
    font from the server's own static files; the folder, to hand to :class:`textual_serve.server.Server`."""
    import textual_serve

    original = (Path(textual_serve.__file__).parent / "templates" / "app_index.html").read_text(encoding="utf-8")
    page = original.replace(WEB_FONT, LOCAL_FONT).replace(TEXTUAL_JS, TEXTUAL_JS + "\n    " + NO_OPENER)
    (folder / "app_index.html").write_text(page, encoding="utf-8")
    return folder


def reachable_url(host: str, port: int) -> str:
    """The address a browser can use: the host itself, or this machine's name where the server listens on every
    address (``0.0.0.0`` is nowhere to browse to)."""
    if host in WILDCARDS:
        host = socket.gethostname() or "localhost"
    return f"http://{f'[{host}]' if ':' in host else host}:{port}"


class SecretServer(Server):
    """textual-serve's server whose page, WebSocket and downloads need the run's secret (see the module's text)."""

    def __init__(self, command: str, *, host: str, port: int, title: str, secret: str, public_url: str | None,
                 templates: Path) -> None:
        super().__init__(command, host=host, port=port, title=title, public_url=public_url,
                         templates_path=templates)
        self.secret = secret
        self.fixed_url = public_url is not None
        self.cookie = f"kandev-tui-{port}"  # a cookie is the host's, whatever its port: one per server

    def initialize_logging(self) -> None:
        """Warnings and errors on standard error; not the request log (its first line would carry the secret)."""
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("kandev-tui serve: %(message)s"))
        root = logging.getLogger()
        root.handlers[:] = [handler]
        root.setLevel(logging.WARNING)
        logging.getLogger("aiohttp.access").disabled = True

    async def on_startup(self, app: web.Application) -> None:
        """Nothing: kandev-tui says the one line itself (textual-serve's banner named the inner command and a URL no
        browser can open)."""

    def _given(self, request: web.Request) -> tuple[bool, bool]:
        """(whether the request carries the secret, whether it came in the URL)."""
        offered = request.query.get("token")
        if offered is not None and hmac.compare_digest(offered.encode(), self.secret.encode()):
            return True, True
        kept = request.cookies.get(self.cookie)
        return kept is not None and hmac.compare_digest(kept.encode(), self.secret.encode()), False

    def _refused(self) -> web.Response:
        return web.Response(status=403, headers=PRIVATE_HEADERS, text="kandev-tui serve: this page needs the address "
                                                                      "with its token, as kandev-tui serve printed it "
                                                                      "in its terminal\n")

    async def handle_index(self, request: web.Request) -> Any:
        allowed, in_url = self._given(request)
        if not allowed:
            return self._refused()
        if in_url:  # kept in the cookie, and taken out of the address bar and the history: back to / with it
            moved = web.HTTPFound("/", headers=PRIVATE_HEADERS)
            moved.set_cookie(self.cookie, self.secret, httponly=True, samesite="Strict", path="/")
            return moved
        if not self.fixed_url:  # the page's links (its scripts, its WebSocket) as the browser reached it
            self.public_url = f"{request.scheme}://{request.host}"
        response = await super().handle_index(request)
        response.headers.update(PRIVATE_HEADERS)
        return response

    async def handle_websocket(self, request: web.Request) -> Any:
        allowed, _ = self._given(request)
        origin = request.headers.get("Origin")
        if not allowed or (origin is not None and urlsplit(origin).netloc != request.host):
            return self._refused()
        return await super().handle_websocket(request)

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        if not self._given(request)[0]:
            return self._refused()
        return await super().handle_download(request)


def serve(command: str, *, host: str, port: int, title: str, public_url: str | None) -> None:
    """Serve ``command`` (one app per browser tab) until interrupted, saying once where, with the secret."""
    secret = new_secret()
    with tempfile.TemporaryDirectory(prefix="kandev-serve-") as folder:
        server = SecretServer(command, host=host, port=port, title=title, secret=secret, public_url=public_url,
                              templates=page_template(Path(folder)))
        url = (public_url or reachable_url(host, port)).rstrip("/")
        print(f"kandev-tui serve: open {url}/?token={secret} in a browser (each tab runs its own app; ctrl+c "
              "stops)", file=sys.stderr, flush=True)
        server.serve()

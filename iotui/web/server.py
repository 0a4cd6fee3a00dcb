"""The web server of ``iotui serve``: textual-serve's, with a token on every request.

textual-serve has no login and starts one app process per connection, so any
local user who can reach the port could start runs. Every launch draws a
random token (as Jupyter does); the page is served at ``/?token=T`` and its
assets and websocket live under ``/t/T/``, so a request without the token
gets 403 and nothing starts. The page's URLs are relative, so it works
through ``ssh -L`` on any local port, and it loads no font from the
internet (the bundled Roboto Mono, then the system's monospace).
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from aiohttp import web
from textual_serve.server import Server

TEMPLATES = Path(__file__).parent / "templates"
FORBIDDEN = (
    "This iotui serve page needs the token printed when it started "
    "(open the full URL it printed, with ?token=...)."
)


@dataclass(frozen=True)
class Listening:
    """Where the server listens and the URL to open."""

    host: str
    port: int
    token: str

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/?token={self.token}"


class TokenServer(Server):
    """textual-serve's server, each route behind the launch's token."""

    def __init__(self, command: str, *, host: str, port: int, title: str, token: str | None = None) -> None:
        super().__init__(command, host=host, port=port, title=title, templates_path=TEMPLATES)
        self.token = token or secrets.token_urlsafe(24)

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    async def _make_app(self) -> web.Application:
        import aiohttp_jinja2
        import jinja2

        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(str(self.templates_path)))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/t/{token}/ws", self.handle_websocket, name="websocket"),
                web.get("/t/{token}/download/{key}", self.handle_download, name="download"),
                web.get("/t/{token}/static/{path:.+}", self.handle_static, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    def _check(self, request: web.Request, given: str | None) -> None:
        if not self.token_ok(given):
            raise web.HTTPForbidden(text=FORBIDDEN)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        import aiohttp_jinja2

        self._check(request, request.query.get("token"))
        font_size = request.query.get("fontsize", "16")
        context = {
            "token": self.token,
            "font_size": int(font_size) if font_size.isdigit() else 16,
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        self._check(request, request.match_info.get("token"))
        return await super().handle_websocket(request)

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        self._check(request, request.match_info.get("token"))
        return await super().handle_download(request)

    async def handle_static(self, request: web.Request) -> web.StreamResponse:
        self._check(request, request.match_info.get("token"))
        path = (self.statics_path / request.match_info["path"]).resolve()
        if not path.is_file() or self.statics_path.resolve() not in path.parents:
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints its logo here; iotui prints its URL once it listens."""

    async def listen(self) -> tuple[web.AppRunner, Listening]:
        """Bind and start serving; the port is the bound one (port 0 picks a free one)."""
        runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host=self.host, port=self.port)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        port = self.port
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            port = sockets[0].getsockname()[1]
        return runner, Listening(self.host, port, self.token)


async def serve_forever(server: TokenServer, on_listening: Callable[[Listening], Any]) -> None:
    """Listen, report the URL, and serve until SIGINT/SIGTERM."""
    runner, listening = await server.listen()
    on_listening(listening)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()

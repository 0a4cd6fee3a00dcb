"""The web server of ``iotui serve``: textual-serve's, with a token on every request.

textual-serve has no login and starts one app process per connection, so any
local user who can reach the port could start runs. Every launch draws a
random token (as Jupyter does); the page is served at ``/?token=T`` and its
assets and websocket live under ``/t/T/``, so a request without the token
gets 403 and nothing starts. The page's URLs are relative, so it works
through ``ssh -L`` on any local port, and it loads no font from the
internet (the bundled Roboto Mono, then the system's monospace). Before any token
check, each connection is held to the limits of :mod:`iotui.web.limits` (time to send
its request head, idle time, connections per client address).
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.server import Server

if TYPE_CHECKING:
    from textual_serve.app_service import AppService

from iotui.web.limits import ConnectionGuard, ServeLimits
from iotui.web.requests import LOG, MAX_TERMINAL_CELLS, BadMessage, OneLineLog, origin_problem, parse_envelope, short_reason

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

    def __init__(self, command: str, *, host: str, port: int, title: str, token: str | None = None,
                 limits: ServeLimits | None = None) -> None:
        super().__init__(command, host=host, port=port, title=title, templates_path=TEMPLATES)
        self.token = token or secrets.token_urlsafe(24)
        self.limits = limits or ServeLimits()
        self.guard = ConnectionGuard(self.limits)

    def token_ok(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())

    async def _make_app(self) -> web.Application:
        import aiohttp_jinja2
        import jinja2

        @web.middleware
        async def head_arrived(request: web.Request, handler: Callable) -> web.StreamResponse:
            self.guard.request(request.protocol, token_shown=False)
            return await handler(request)

        app = web.Application(middlewares=[head_arrived])
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
        """Refuse a request without the token, and close its connection; with it, the connection stops
        counting against its client's limit."""
        if not self.token_ok(given):
            raise _closing(web.HTTPForbidden(text=FORBIDDEN))
        self.guard.request(request.protocol, token_shown=True)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        import aiohttp_jinja2

        self._check(request, request.query.get("token"))
        font_size = request.query.get("fontsize", "16")
        context = {
            "token": self.token,
            # ASCII digits, three at most: isdigit() also takes '²', which int() refuses (a 500).
            "font_size": int(font_size) if font_size.isascii() and font_size.isdigit() and len(font_size) <= 3 else 16,
            "application": {"name": self.title},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """textual-serve's websocket, after the token and the Origin, with each message judged."""
        from textual_serve.app_service import AppService

        self._check(request, request.match_info.get("token"))
        problem = origin_problem(request.headers.get("Origin"), request.host, request.scheme)
        if problem is not None:
            LOG.warning("iotui serve: refused a websocket from %s: %s.", request.remote, problem)
            raise _closing(web.HTTPForbidden(text="This iotui serve page must be opened from its own URL."))
        websocket = web.WebSocketResponse(heartbeat=15)
        width = _cells(request.query.get("width"), 80)
        height = _cells(request.query.get("height"), 24)
        app_service: AppService | None = None

        async def close() -> None:
            await websocket.close()

        try:
            await websocket.prepare(request)
            app_service = AppService(
                self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                close=close, download_manager=self.download_manager, debug=self.debug,
            )
            await app_service.start(width, height)
            await self._process_messages(websocket, app_service)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # noqa: BLE001 - one line for the operator, never a traceback
            LOG.warning("iotui serve: the websocket from %s ended: %s.", request.remote, short_reason(error))
        finally:
            if app_service is not None:
                await app_service.stop()
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = parse_envelope(message.data)
            except BadMessage as bad:
                LOG.warning("iotui serve: closed a websocket that sent %s.", bad)
                await websocket.close(code=WSCloseCode.UNSUPPORTED_DATA, message=b"not a message iotui serve reads")
                return
            if envelope.kind == "stdin":
                await app_service.send_bytes(envelope.data.encode("utf-8"))
            elif envelope.kind == "resize":
                await app_service.set_terminal_size(envelope.data["width"], envelope.data["height"])
            elif envelope.kind == "ping":
                await websocket.send_json(["pong", envelope.data])
            elif envelope.kind == "blur":
                await app_service.blur()
            elif envelope.kind == "focus":
                await app_service.focus()

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        self._check(request, request.match_info.get("token"))
        return await super().handle_download(request)

    async def handle_static(self, request: web.Request) -> web.StreamResponse:
        self._check(request, request.match_info.get("token"))
        if "\x00" in request.match_info["path"]:
            LOG.warning("iotui serve: refused a static path with a NUL byte from %s.", request.remote)
            raise web.HTTPBadRequest(text="A path with a NUL byte is not a file.")
        path = (self.statics_path / request.match_info["path"]).resolve()
        if not path.is_file() or self.statics_path.resolve() not in path.parents:
            raise web.HTTPNotFound()
        return web.FileResponse(path)

    async def on_startup(self, app: web.Application) -> None:
        """textual-serve prints its logo here; iotui prints its URL once it listens."""

    async def listen(self) -> tuple[web.AppRunner, Listening]:
        """Bind and start serving; the port is the bound one (port 0 picks a free one)."""
        # Bad requests (a duplicate Host, a request line over 8 KiB) get aiohttp's 400 and one log line.
        runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None, logger=OneLineLog(),
                               keepalive_timeout=self.limits.idle_timeout_s)
        await runner.setup()
        site = GuardedSite(runner, self.host, self.port, self.guard)
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


class GuardedSite(web.BaseSite):
    """aiohttp's TCP site, each connection's protocol behind the guard."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, guard: ConnectionGuard) -> None:
        super().__init__(runner)
        self.host, self.port, self.guard = host, port, guard

    @property
    def name(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            lambda: self.guard.protocol(server()), self.host, self.port, backlog=self._backlog,
        )


def _closing(refusal: web.HTTPException) -> web.HTTPException:
    """A refusal that closes its connection after answering (it showed no token: it holds no socket on)."""
    refusal.force_close()
    return refusal


def _cells(text: str | None, default: int) -> int:
    """The page's terminal size from the query, within 1..MAX_TERMINAL_CELLS."""
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 6:
        return default
    return min(max(int(text), 1), MAX_TERMINAL_CELLS)


async def serve_forever(server: TokenServer, on_listening: Callable[[Listening], object]) -> None:
    """Listen, report the URL, and serve until SIGINT/SIGTERM."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(server.guard.accept_failures)
    runner, listening = await server.listen()
    on_listening(listening)
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()

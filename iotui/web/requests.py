"""What ``iotui serve`` accepts from a browser, judged before textual-serve sees it.

Anyone who can reach the port can send bytes, token or not: a duplicate ``Host`` header, a
request line over aiohttp's 8 KiB, a NUL byte in a path, a websocket message that is not the
JSON envelope the page sends. Each is answered with a status (400, 403, 404, or a websocket
close code) and one log line naming the peer and the reason, never a traceback. A websocket
opened from another site's page (its ``Origin`` names another host:port than ``Host``) is
refused: the browser sends ``Origin`` on every websocket it opens, so a page elsewhere cannot
drive iotui even if it learned the token; a client with no ``Origin`` (not a browser) passes on
the token alone.
"""

from __future__ import annotations

import json
import logging
import sys
from dataclasses import dataclass
from typing import Any

from yarl import URL

from iotui.core.terminal_text import terminal_safe

LOG = logging.getLogger("iotui.serve")
MAX_REASON_CHARS = 160
MAX_STDIN_CHARS = 1024 * 1024
MAX_TERMINAL_CELLS = 1000
"""The widest and tallest terminal a page may ask for (a 4K screen at a tiny font is about 700 columns)."""
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def short_reason(error: BaseException | None) -> str:
    """An exception as one short, terminal-safe clause (aiohttp's messages quote the peer's bytes)."""
    if error is None:
        return "no detail"
    message = getattr(error, "message", None)
    code = getattr(error, "code", None)
    text = f"{code} {message}" if isinstance(message, str) and isinstance(code, int) else f"{type(error).__name__}: {error}"
    text = terminal_safe(" ".join(text.split()))
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 3] + "..."


class OneLineLog(logging.LoggerAdapter):
    """aiohttp's server logger, with every exception written as one line instead of a traceback."""

    def __init__(self, logger: logging.Logger = LOG) -> None:
        super().__init__(logger, {})

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        exc_info = kwargs.pop("exc_info", None)
        kwargs.pop("stack_info", None)
        if exc_info:
            error = exc_info if isinstance(exc_info, BaseException) else sys.exc_info()[1]
            text = (str(msg) % args) if args else str(msg)
            self.logger.log(level, "iotui serve: %s: %s", terminal_safe(text), short_reason(error), **kwargs)
            return
        self.logger.log(level, msg, *args, **kwargs)


def _host_port(scheme: str, netloc: str) -> tuple[str, int] | None:
    try:
        url = URL.build(scheme=scheme, authority=netloc)
    except (ValueError, TypeError):
        return None
    if not url.host:
        return None
    port = url.port or _DEFAULT_PORTS.get(scheme)
    return (url.host.lower().strip("[]"), port) if port is not None else None


def origin_problem(origin: str | None, host: str | None, scheme: str = "http") -> str | None:
    """Why a websocket's ``Origin`` does not name the server it reached (a clause), or None."""
    if origin is None:
        return None  # not a browser: the token alone decides
    try:
        origin_url = URL(origin)
    except ValueError:
        origin_url = URL()
    if origin_url.scheme not in ("http", "https") or not origin_url.host:
        return f"its Origin {terminal_safe(origin)[:80]!r} is not a web page's"
    theirs = _host_port(origin_url.scheme, origin_url.raw_authority)
    ours = _host_port(scheme, host or "")
    if theirs is None or ours is None or theirs != ours:
        return f"its Origin {terminal_safe(origin)[:80]!r} is another site than {terminal_safe(host or '')[:80]!r}"
    return None


class BadMessage(ValueError):
    """A websocket message that is not one the page sends; str() is the reason."""


@dataclass(frozen=True)
class Envelope:
    kind: str
    data: Any = None


def parse_envelope(text: str) -> Envelope:
    """The page's ``["stdin", "..."]``, ``["resize", {"width": W, "height": H}]``, ``["ping", x]``,
    ``["blur"]``, ``["focus"]``; anything else is a BadMessage (unknown kinds pass, unused)."""
    try:
        envelope = json.loads(text)
    except (ValueError, RecursionError):
        raise BadMessage("a message that is not JSON") from None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        raise BadMessage("a message that is not a [kind, data] list")
    kind = envelope[0]
    data = envelope[1] if len(envelope) > 1 else None
    if kind == "stdin":
        if not isinstance(data, str) or len(data) > MAX_STDIN_CHARS:
            raise BadMessage(f"a stdin message without text of at most {MAX_STDIN_CHARS:,} characters")
    elif kind == "resize":
        if not isinstance(data, dict) or not all(_cells(data.get(key)) for key in ("width", "height")):
            raise BadMessage(f"a resize message without a width and height of 1 to {MAX_TERMINAL_CELLS}")
    elif kind == "ping":
        if not isinstance(data, (str, int, float)) or isinstance(data, bool) or len(str(data)) > 256:
            raise BadMessage("a ping without a short string or number")
    return Envelope(kind, data)


def _cells(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_TERMINAL_CELLS

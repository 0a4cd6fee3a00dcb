"""What one client may hold of ``iotui serve``, enforced before any token check.

A socket is a file descriptor, and anyone who can reach the port can open sockets: idle ones,
or ones that send half a request and stop. aiohttp alone keeps such a connection for its
keep-alive time (75 s) and has no limit per client, so 1,100 idle local connections used every
descriptor a 1,024-file limit allows, and the token holder's page could no longer connect.

Here every connection must finish its request head within ``header_timeout_s`` of connecting
(bytes trickled in do not extend it), an idle keep-alive connection closes after
``idle_timeout_s``, and one client address keeps at most ``connections_per_client`` connections
that have not yet shown the token: a new one closes the oldest of them, so a flood from one
address holds a few sockets, not all, and a browser with the token, which sends its request
the moment it connects, still gets in. A connection that has shown the token no longer counts.
When the process is out of descriptors anyway (many addresses), asyncio's accept fails with
EMFILE and retries each second; :func:`loop_exception_handler` makes that one log line per
``LOG_INTERVAL_S`` instead of a traceback per failed accept.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from iotui.web.requests import LOG, short_reason

LOG_INTERVAL_S = 30.0
"""The most often one kind of repeated event (an accept failing, connections closed over the cap) is logged."""
_OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


@dataclass(frozen=True)
class ServeLimits:
    """How long a connection may take and how many one client address may hold before showing the token."""

    header_timeout_s: float = 10.0
    idle_timeout_s: float = 20.0
    connections_per_client: int = 16


class RateLimitedLine:
    """One log line now, then at most one per ``interval_s``, each saying how many were not logged between."""

    def __init__(self, interval_s: float = LOG_INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self.clock = clock
        self.last_s: float | None = None
        self.unlogged = 0

    def log(self, level: int, text: str, logger: logging.Logger = LOG) -> None:
        now_s = self.clock()
        if self.last_s is not None and now_s - self.last_s < self.interval_s:
            self.unlogged += 1
            return
        more = f" ({self.unlogged:,} more like it since the last such line)" if self.unlogged else ""
        logger.log(level, "%s%s", text, more)
        self.last_s, self.unlogged = now_s, 0


class GuardedConnection(asyncio.Protocol):
    """aiohttp's protocol for one connection, behind the head deadline and the per-client count."""

    def __init__(self, inner: asyncio.Protocol, guard: ConnectionGuard) -> None:
        self.inner = inner
        self.guard = guard
        self.client = "?"
        self.transport: asyncio.BaseTransport | None = None
        self.head_deadline: asyncio.TimerHandle | None = None
        self.head_received = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.client = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        loop = asyncio.get_running_loop()
        self.head_deadline = loop.call_later(self.guard.limits.header_timeout_s, self._head_too_late)
        self.inner.connection_made(transport)
        self.guard.admit(self)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_deadline()
        self.guard.forget(self)
        self.inner.connection_lost(exc)

    def got_head(self) -> None:
        self.head_received = True
        self._stop_deadline()

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def _stop_deadline(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None

    def _head_too_late(self) -> None:
        self.head_deadline = None
        if not self.head_received:
            self.guard.closed_late(self)
            self.close()


class ConnectionGuard:
    """The open connections by client address, and which of them have shown the token."""

    def __init__(self, limits: ServeLimits) -> None:
        self.limits = limits
        self.waiting: dict[str, OrderedDict[GuardedConnection, None]] = {}
        """Per client address, its connections that have not shown the token, oldest first."""
        self.by_handler: dict[object, GuardedConnection] = {}
        self.over_cap_line = RateLimitedLine()
        self.late_line = RateLimitedLine()
        self.accept_failures = AcceptFailures()

    def protocol(self, inner: asyncio.Protocol) -> GuardedConnection:
        return GuardedConnection(inner, self)

    def admit(self, connection: GuardedConnection) -> None:
        self.by_handler[connection.inner] = connection
        waiting = self.waiting.setdefault(connection.client, OrderedDict())
        waiting[connection] = None
        while len(waiting) > self.limits.connections_per_client:
            oldest, _ = waiting.popitem(last=False)
            self.over_cap_line.log(
                logging.WARNING,
                f"iotui serve: {connection.client} opened more than {self.limits.connections_per_client} "
                "connections without the token; closed the oldest.",
            )
            oldest.close()

    def forget(self, connection: GuardedConnection) -> None:
        self.by_handler.pop(connection.inner, None)
        waiting = self.waiting.get(connection.client)
        if waiting is not None:
            waiting.pop(connection, None)
            if not waiting:
                del self.waiting[connection.client]

    def request(self, handler: object, token_shown: bool) -> None:
        """A request head arrived on ``handler``'s connection (aiohttp's protocol); with the token, the
        connection stops counting against its client's limit."""
        connection = self.by_handler.get(handler)
        if connection is None:
            return
        connection.got_head()
        if token_shown:
            waiting = self.waiting.get(connection.client)
            if waiting is not None:
                waiting.pop(connection, None)

    def closed_late(self, connection: GuardedConnection) -> None:
        self.late_line.log(
            logging.INFO,
            f"iotui serve: closed a connection from {connection.client} that sent no whole request head "
            f"within {self.limits.header_timeout_s:g} s.",
        )


class AcceptFailures:
    """The event loop's exceptions as one line each; a failing accept (out of descriptors, which asyncio
    retries each second) at most once per LOG_INTERVAL_S, with how many failed since the last line."""

    def __init__(self) -> None:
        self.line = RateLimitedLine()

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if isinstance(error, OSError) and error.errno in _OUT_OF_RESOURCES and "socket" in context:
            self.line.log(
                logging.ERROR,
                f"iotui serve: cannot accept connections: {error.strerror or short_reason(error)} "
                "(every file descriptor is in use); retrying each second. Close idle connections, or raise "
                "the limit (ulimit -n) before starting iotui serve.",
            )
            return
        message = str(context.get("message") or "an error in the event loop")
        LOG.error("iotui serve: %s: %s.", message, short_reason(error if isinstance(error, BaseException) else None))

"""How many connections the API holds at once and how long it waits on each: caps sized from
the process's descriptor limit, well below it, so that clients (a web page can open
connections to 127.0.0.1) never take the descriptors the controller needs for its pictures,
its ledger and its ComfyUI connections.

A connection past the cap is answered 503 at once and closed, its request unread; a request
whose line and headers have not all arrived ``HEADER_TIMEOUT_S`` after the connection opened
(or after its previous response) is dropped (aiohttp's keep-alive timer, which also bounds an
idle connection); a body is read within ``BODY_TIMEOUT_S`` (``core.api.bodies``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from core.api.quiet_log import quiet_logger

if TYPE_CHECKING:
    from aiohttp.web_server import Server

HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 30.0
WANTED_DESCRIPTORS = 4096  # the soft limit asked for at start (the hard limit permitting)
NO_LIMIT_KNOWN = 512  # Windows' C runtime (no resource module)
MAX_CONNECTIONS = 1024  # however many descriptors: more is no local client's need
RETRY_AFTER_S = 1
REFUSED_LINGER_S = 0.5
# Connections waiting to be accepted; asyncio accepts as many in one go: a burst beyond waits
# in the system (its SYN answered again later), not on the loop.
BACKLOG = 16
REFUSING_MAX = 64  # refusals answered at once; past them, a connection is closed unanswered


@dataclass(frozen=True)
class ConnectionCaps:
    """Connections open at once, and event streams at once (in all, and of one token)."""

    connections: int = 64
    streams: int = 32
    streams_per_token: int = 8

    @classmethod
    def for_descriptors(cls, descriptors: int) -> ConnectionCaps:
        """A quarter of the descriptors for connections (the rest is the controller's and
        SQLite's), half of those for streams, an eighth of the streams for one token."""
        connections = max(8, min(MAX_CONNECTIONS, descriptors // 4))
        streams = connections // 2
        return cls(connections, streams, max(2, streams // 8))


def raise_descriptor_limit(wanted: int = WANTED_DESCRIPTORS) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` where the hard limit
    allows (many desktops start programs at 1,024, or 256 on macOS); the limit now."""
    if sys.platform == "win32":
        return NO_LIMIT_KNOWN
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        with contextlib.suppress(ValueError, OSError):  # macOS refuses past its OPEN_MAX
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return soft


class _Count:
    """The connections open now (counted from the moment each is accepted), and those being
    refused."""

    def __init__(self) -> None:
        self.open = self.refusing = 0


class _CountedHandler(RequestHandler):
    """aiohttp's request handler, counted from its creation to its connection's end."""

    __slots__ = ("_count", "_counted")

    def __init__(self, count: _Count, manager: Server, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self._count, self._counted = count, True
        count.open += 1

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._counted:
            self._count.open -= 1
            self._counted = False
        super().connection_lost(exc)


_BUSY_BODY = json.dumps(
    {"error": "unavailable", "message": "the API has as many connections as it takes open"}
).encode()
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\n"
    + f"Retry-After: {RETRY_AFTER_S}\r\nConnection: close\r\n".encode()
    + f"Content-Length: {len(_BUSY_BODY)}\r\n\r\n".encode()
    + _BUSY_BODY
)


class _Refused(asyncio.Protocol):
    """A connection past the cap: 503 (the API's error shape), then closed once the client
    has closed its side or after ``REFUSED_LINGER_S`` (closing at once, with the request
    unread, would reset the connection before the client read the 503). What it sends is
    dropped unparsed. Past as many of these as the cap on connections, a new one is closed at
    once instead."""

    def __init__(self, count: _Count) -> None:
        self._count = count
        self._timer: asyncio.TimerHandle | None = None
        count.refusing += 1

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        if self._count.refusing > REFUSING_MAX:
            transport.abort()
            return
        transport.write(_BUSY)
        try:
            transport.write_eof()
        except OSError:  # the client has gone already
            transport.abort()
            return
        self._timer = asyncio.get_running_loop().call_later(REFUSED_LINGER_S, transport.close)

    def data_received(self, data: bytes) -> None:
        pass

    def connection_lost(self, exc: Exception | None) -> None:
        self._count.refusing -= 1
        if self._timer is not None:
            self._timer.cancel()


class CappedSite(web.TCPSite):
    """A TCP site that holds at most ``caps.connections`` connections open at once."""

    def __init__(self, runner: web.AppRunner, host: str, port: int, caps: ConnectionCaps) -> None:
        super().__init__(runner, host, port)
        self._caps, self._count = caps, _Count()
        self._log = quiet_logger()

    @property
    def open_connections(self) -> int:
        return self._count.open

    async def start(self) -> None:
        await web.BaseSite.start(self)  # registers the site; TCPSite's own would listen
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            self._protocol,
            self._host,
            self._port,
            reuse_address=self._reuse_address,
            backlog=BACKLOG,
        )

    def _protocol(self) -> asyncio.BaseProtocol:
        server = self._runner.server
        assert server is not None
        if self._count.open >= self._caps.connections:
            self._log.warning(
                "the API refused a connection: %d are open, its cap", self._caps.connections
            )
            return _Refused(self._count)
        return _CountedHandler(self._count, server, loop=server._loop, **server._kwargs)

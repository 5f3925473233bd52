"""The WebSocket listener: an async iterator of typed events that reconnects with backoff."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import time
from typing import TYPE_CHECKING, Self

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from core.comfy.auth import RedactAuthorization
from core.comfy.backoff import Backoff
from core.comfy.events import (
    Connected,
    Disconnected,
    Event,
    Reconnected,
    parse_binary,
    parse_event,
)
from core.errors import ComfyAuthError, ComfyProtocolError

if TYPE_CHECKING:
    import ssl
    from collections.abc import Mapping
    from types import TracebackType

log = logging.getLogger(__name__)
# websockets logs the handshake's headers at DEBUG: the Authorization header is blanked.
_socket_log = log.getChild("socket")
_socket_log.addFilter(RedactAuthorization())

MAX_MESSAGE = 32 * 1024 * 1024  # executed/progress_state messages of big graphs exceed 1 MiB
STABLE_AFTER = 10.0  # a connection that lived this long resets the backoff
CLOSE_TIMEOUT_S = 2.0  # for the server's close frame, which a flood may bury
# More messages than this within one window is a flood (ComfyUI sends a few per node and step,
# about 15 a job for a small workflow: a server finishing 300 jobs a second sends 4,500 a
# second): the connection is dropped and opened again after the backoff.
FLOOD_MESSAGES = 50_000
FLOOD_WINDOW_S = 5.0
# Malformed messages: the first is logged, then at most one count per interval (and at a drop).
MALFORMED_REPORT_S = 60.0
FEATURE_FLAGS = json.dumps({"type": "feature_flags", "data": {"supports_preview_metadata": True}})


class Listener:
    """Reads ``/ws?clientId=...`` and yields typed events; reconnects on its own.

    Events: ``Connected`` once, then server events; when the socket drops, ``Disconnected``
    (also for each failed attempt), then ``Reconnected`` when a new socket is open. Nothing
    missed in between is replayed: on ``Reconnected`` re-read ``/queue`` and ``/history``.
    Binary frames, unknown types and malformed messages are skipped (the first malformed one is
    logged, then their count once a minute). A connection that sends more than
    ``FLOOD_MESSAGES`` messages within ``FLOOD_WINDOW_S`` seconds is dropped (a warning) and
    opened again after the backoff.

    Usage::

        async with client.listener() as events:
            async for event in events:
                ...
    """

    def __init__(
        self,
        url: str,
        client_id: str,
        *,
        headers: Mapping[str, str] | None = None,
        ssl_context: ssl.SSLContext | None = None,
        backoff: Backoff | None = None,
        open_timeout: float = 10.0,
    ) -> None:
        self.url = url
        self.client_id = client_id
        self._headers = dict(headers or {})
        self._ssl = ssl_context
        self._backoff = backoff or Backoff()
        self._open_timeout = open_timeout
        self._socket: ClientConnection | None = None
        self._opening: asyncio.Future[ClientConnection] | None = None
        self._queued: collections.deque[Event] = collections.deque()
        self._closing = asyncio.Event()
        self._delay = 0.0
        self._connects = 0
        self._connected_at = 0.0
        self._window_start = 0.0
        self._window_count = 0
        self.skipped = 0  # malformed messages skipped so far: what they said is unknown
        self._malformed_seen = False
        self._malformed_unreported = 0
        self._malformed_last: tuple[float, str] = (0.0, "")  # when reported, the latest error

    @property
    def connected(self) -> bool:
        return self._socket is not None

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> Event:
        while not self._closing.is_set():
            if self._queued:
                return self._queued.popleft()
            if self._socket is None:
                await self._connect()
                continue
            event = await self._receive(self._socket)
            if event is not None:
                return event
        raise StopAsyncIteration

    async def aclose(self) -> None:
        """Stop: close the socket and end any running ``async for``."""
        self._closing.set()
        if self._opening is not None:
            self._opening.cancel()
        socket, self._socket = self._socket, None
        if socket is not None:
            await socket.close()
        self._report_malformed()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # --- internals ----------------------------------------------------------------------------

    async def _connect(self) -> None:
        """One attempt (after the pending delay): queues Connected/Reconnected or Disconnected."""
        await self._pause(self._delay)
        if self._closing.is_set():
            return
        try:
            socket = await self._open_unless_closed()
        except (OSError, TimeoutError, InvalidHandshake) as exc:
            self._retry_later(f"connect failed: {_describe(exc)}")
            return
        if socket is None:
            return
        if self._closing.is_set():
            await socket.close()
            return
        self._opened(socket)  # first: closing the listener meanwhile closes this socket too
        await self._announce(socket)

    async def _open_unless_closed(self) -> ClientConnection | None:
        """Open a socket; None if ``aclose`` cancelled the handshake (it may take seconds)."""
        self._opening = opening = asyncio.ensure_future(self._open())
        try:
            return await opening
        except asyncio.CancelledError:
            _abort_unclaimed(opening)
            task = asyncio.current_task()
            if self._closing.is_set() and (task is None or not task.cancelling()):
                return None
            raise
        finally:
            self._opening = None

    async def _open(self) -> ClientConnection:
        try:
            return await connect(
                self.url,
                additional_headers=self._headers,
                ssl=self._ssl,
                max_size=MAX_MESSAGE,
                open_timeout=self._open_timeout,
                close_timeout=CLOSE_TIMEOUT_S,
                origin=None,  # ComfyUI's origin check 403s a mismatched Origin; send none
                logger=_socket_log,
            )
        except InvalidStatus as exc:
            if exc.response.status_code in (401, 403):
                raise ComfyAuthError("credentials refused", "WS /ws") from exc
            raise

    async def _announce(self, socket: ClientConnection) -> None:
        """Ask for previews that name their prompt (binary type 4 instead of 1), as ComfyUI's
        frontend does with its first message; an older server ignores it."""
        with contextlib.suppress(ConnectionClosed):
            await socket.send(FEATURE_FLAGS)

    def _opened(self, socket: ClientConnection) -> None:
        self._socket = socket
        self._connected_at = self._window_start = time.monotonic()
        self._window_count = 0
        self._connects += 1
        if self._connects == 1:
            self._queued.append(Connected(self.client_id))
        else:
            self._queued.append(Reconnected(self.client_id, attempt=self._connects - 1))

    async def _receive(self, socket: ClientConnection) -> Event | None:
        try:
            frame = await socket.recv()
        except ConnectionClosed as exc:
            await self._dropped(socket, f"connection closed: {_describe(exc)}")
            return None
        if self._flooding():
            flood = f"more than {FLOOD_MESSAGES} messages within {FLOOD_WINDOW_S:g} s"
            await self._dropped(socket, f"dropped a flood ({flood})", flood=True)
            return None
        try:
            return parse_binary(frame) if isinstance(frame, bytes) else parse_event(frame)
        except ComfyProtocolError as exc:
            self._malformed(exc)
            return None

    def _flooding(self) -> bool:
        """Count one message; whether this window has now had too many."""
        now = time.monotonic()
        if now - self._window_start >= FLOOD_WINDOW_S:
            self._window_start, self._window_count = now, 0
        self._window_count += 1
        return self._window_count > FLOOD_MESSAGES

    def _malformed(self, exc: ComfyProtocolError) -> None:
        """Log the first malformed message; count the others, reported once per interval."""
        self.skipped += 1
        if not self._malformed_seen:
            self._malformed_seen = True
            self._malformed_last = (time.monotonic(), str(exc))
            log.warning("ignoring malformed WebSocket messages from %s, first: %s", self.url, exc)
            return
        self._malformed_unreported += 1
        self._malformed_last = (self._malformed_last[0], str(exc))
        if time.monotonic() - self._malformed_last[0] >= MALFORMED_REPORT_S:
            self._report_malformed()

    def _report_malformed(self) -> None:
        if self._malformed_unreported:
            log.warning(
                "ignored %d more malformed WebSocket messages from %s, latest: %s",
                self._malformed_unreported,
                self.url,
                self._malformed_last[1],
            )
            self._malformed_unreported = 0
        self._malformed_last = (time.monotonic(), self._malformed_last[1])

    async def _dropped(self, socket: ClientConnection, reason: str, *, flood: bool = False) -> None:
        # Close the old socket before any new one opens: a stale socket with our clientId
        # would unregister the new one when it finally closes (ComfyUI keys its sockets by
        # clientId).
        await socket.close()
        self._socket = None
        self._report_malformed()
        if self._closing.is_set():
            return
        if not flood and time.monotonic() - self._connected_at >= STABLE_AFTER:
            self._backoff.reset()  # never after a flood: its drops come further and further apart
        self._retry_later(reason, logging.WARNING if flood else logging.INFO)

    def _retry_later(self, reason: str, level: int = logging.INFO) -> None:
        self._delay = self._backoff.next_delay()
        log.log(level, "WebSocket %s %s; retrying in %.2f s", self.url, reason, self._delay)
        self._queued.append(Disconnected(reason, retry_in=self._delay))

    async def _pause(self, delay: float) -> None:
        if delay > 0:  # asyncio.timeout: wait_for may swallow a cancellation on 3.11
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._closing.wait()


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _abort_unclaimed(opening: asyncio.Future[ClientConnection]) -> None:
    """Close the socket of a handshake that finished just as its caller was cancelled: no one
    else holds it."""
    if opening.done() and not opening.cancelled() and opening.exception() is None:
        opening.result().transport.abort()

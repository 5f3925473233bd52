"""``GET /v1/events``: Server-Sent Events, one per change to one of the requester's jobs.

Each event's id is the ledger's change-feed position of that change (``Ledger.changes_since``),
so a client that reconnects with ``Last-Event-ID`` misses nothing: the feed is the ledger, not
this process's memory. A job changed several times between two looks is sent once, as it is
now. A comment line every ``KEEPALIVE_S`` keeps idle connections open through proxies.

The feed is read off the event loop, ``PAGE`` of the requester's changes at a time (filtered in
the query), and at most ``ConnectionCaps.streams`` streams are open at once, and
``streams_per_token`` of one requester: past either, 503.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from functools import partial
from typing import TYPE_CHECKING

from aiohttp import web

from core.api.auth import LEDGER, requester_of
from core.api.connections import RETRY_AFTER_S
from core.api.errors import ApiError
from core.api.pictures import with_pictures
from core.api.reads import off_the_loop
from core.controller.placing_said import WaitingReasons, with_waiting
from core.ledger.job_json import job_json

if TYPE_CHECKING:
    from collections.abc import Iterator

    from core.api.connections import ConnectionCaps
    from core.ledger import JobRecord, Ledger

POLL_S = 0.2
PAGE = 100  # the requester's changes read (and written) at a time
KEEPALIVE_S = 15.0
RETRY_MS = 1000  # how soon a disconnected client tries again (the SSE retry field)
MAX_POSITION_DIGITS = 30
# Set when the API stops: open streams end instead of holding the shutdown up.
STOPPING: web.AppKey[asyncio.Event] = web.AppKey("stopping")


class StreamCount:
    """The event streams open now, in all and by requester, held within their caps."""

    def __init__(self, caps: ConnectionCaps) -> None:
        self._caps = caps
        self._open: Counter[str] = Counter()

    @contextlib.contextmanager
    def held(self, requester: str) -> Iterator[None]:
        """One stream of the requester while inside (ApiError 503 past a cap)."""
        caps, retry = self._caps, {"Retry-After": str(RETRY_AFTER_S)}
        if self._open.total() >= caps.streams:
            raise ApiError(503, f"the API has {caps.streams} event streams open, its cap", retry)
        if self._open[requester] >= caps.streams_per_token:
            message = f"this token has {caps.streams_per_token} event streams open, its cap"
            raise ApiError(503, message, retry)
        self._open[requester] += 1
        try:
            yield
        finally:
            self._open[requester] -= 1
            if not self._open[requester]:
                del self._open[requester]


STREAMS: web.AppKey[StreamCount] = web.AppKey("streams")


def start_position(text: str | None, latest: int) -> int:
    """Where to start: after ``Last-Event-ID`` (or ``?since=``), else at the ``latest`` change;
    a position past the latest is the latest (another ledger's, or one to come)."""
    if text is None or not text.strip():
        return latest
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_POSITION_DIGITS:
        raise ApiError(400, f"Last-Event-ID: {text[:40]!r} is not a change number")
    return min(int(text), latest)


async def events(request: web.Request) -> web.StreamResponse:
    ledger, requester = request.app[LEDGER], requester_of(request)
    with request.app[STREAMS].held(requester):
        text = request.headers.get("Last-Event-ID") or request.query.get("since")
        seq = start_position(text, await off_the_loop(request, ledger.latest_seq))
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        try:
            await response.write(f"retry: {RETRY_MS}\n: following from change {seq}\n\n".encode())
            await _follow(request, response, requester, seq)
        except ConnectionResetError:  # the client went away
            pass
        return response


def _page(ledger: Ledger, requester: str, seq: int) -> tuple[list[bytes], int, bool]:
    """The requester's next changes after ``seq`` as events, the position reached, and
    whether more may follow at once (a full page)."""
    jobs, reached = ledger.changes_since(seq, PAGE, requester)
    reasons = WaitingReasons(ledger)  # the servers read once a page, if a job is pending
    return [_event(ledger, job, reasons) for job in jobs], reached, len(jobs) == PAGE


def _event(ledger: Ledger, job: JobRecord, reasons: WaitingReasons) -> bytes:
    told = with_pictures(with_waiting(job_json(ledger, job), job, reasons), job)
    data = json.dumps(told, ensure_ascii=False)
    return f"id: {job.seq}\nevent: job\ndata: {data}\n\n".encode()


async def _follow(
    request: web.Request, response: web.StreamResponse, requester: str, seq: int
) -> None:
    ledger, stopping = request.app[LEDGER], request.app[STOPPING]
    quiet_since = time.monotonic()
    while not stopping.is_set() and not _gone(request):
        sent, seq, more = await off_the_loop(request, partial(_page, ledger, requester, seq))
        for event in sent:
            await response.write(event)
        if sent:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= KEEPALIVE_S:
            await response.write(b": keep-alive\n\n")
            quiet_since = time.monotonic()
        if not more:
            await _sleep_unless(stopping, POLL_S)


def _gone(request: web.Request) -> bool:
    """Whether the client has closed the stream: its slot is free at the next look, not at
    the next write."""
    return request.transport is None or request.transport.is_closing()


async def _sleep_unless(event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), seconds)

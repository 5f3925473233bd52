"""``GET /v1/events``: Server-Sent Events, one per change to one of the requester's jobs.

Each event's id is the ledger's change-feed position of that change (``Ledger.changes_since``),
so a client that reconnects with ``Last-Event-ID`` misses nothing: the feed is the ledger, not
this process's memory. A job changed several times between two looks is sent once, as it is
now. A comment line every ``KEEPALIVE_S`` keeps idle connections open through proxies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import TYPE_CHECKING

from aiohttp import web

from core.api.auth import LEDGER, requester_of
from core.api.errors import ApiError
from core.job_json import job_json

if TYPE_CHECKING:
    from core.ledger import Ledger

POLL_S = 0.2
KEEPALIVE_S = 15.0
RETRY_MS = 1000  # how soon a disconnected client tries again (the SSE retry field)
# Set when the API stops: open streams end instead of holding the shutdown up.
STOPPING: web.AppKey[asyncio.Event] = web.AppKey("stopping")


def start_position(request: web.Request, ledger: Ledger) -> int:
    """Where to start: after ``Last-Event-ID`` (or ``?since=``), else at the latest change."""
    text = request.headers.get("Last-Event-ID") or request.query.get("since")
    if text is None or not text.strip():
        return ledger.latest_seq()
    try:
        position = int(text)
    except ValueError:
        raise ApiError(400, f"Last-Event-ID: {text!r} is not a change number") from None
    if position < 0:
        raise ApiError(400, f"Last-Event-ID: {position} is below 0")
    return position


async def events(request: web.Request) -> web.StreamResponse:
    ledger, requester = request.app[LEDGER], requester_of(request)
    seq = start_position(request, ledger)
    stopping = request.app[STOPPING]
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
        await _follow(response, ledger, requester, seq, stopping)
    except ConnectionResetError:  # the client went away
        pass
    return response


async def _follow(
    response: web.StreamResponse, ledger: Ledger, requester: str, seq: int, stopping: asyncio.Event
) -> None:
    quiet_since = time.monotonic()
    while not stopping.is_set():
        jobs, seq = ledger.changes_since(seq)
        mine = [job for job in jobs if job.requester == requester]
        for job in mine:
            data = json.dumps(job_json(ledger, job), ensure_ascii=False)
            await response.write(f"id: {job.seq}\nevent: job\ndata: {data}\n\n".encode())
        if mine:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= KEEPALIVE_S:
            await response.write(b": keep-alive\n\n")
            quiet_since = time.monotonic()
        if not jobs:
            await _sleep_unless(stopping, POLL_S)


async def _sleep_unless(event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), seconds)

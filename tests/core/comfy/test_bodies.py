"""A hostile server cannot hang or exhaust the client: every answer has a size limit and every
request a deadline, on every route (tests/core/hostile.py answers them badly on purpose)."""

from __future__ import annotations

import asyncio
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest

from core.comfy import ComfyClient
from core.comfy.bodies import MAX_ANSWER_BYTES, MAX_CATALOGUE_BYTES, MIB
from core.comfy.http_errors import plain_reason
from core.errors import (
    ComfyAnswerTooLarge,
    ComfyProtocolError,
    ComfyServerError,
    ComfyTimeout,
)
from tests.core.comfy.conftest import HANG_S, SOCKET_SLACK
from tests.core.hostile import GB, HostileServer, garbage, huge, trickle

pytestmark = pytest.mark.asyncio


Call = Callable[[ComfyClient], Awaitable[Any]]


# (route the server sees, the client call that asks it, the route's limit)
ROUTES: list[tuple[str, Call, int]] = [
    ("GET /queue", lambda c: c.queue(), MAX_ANSWER_BYTES),
    ("POST /prompt", lambda c: c.submit({}, "p1"), MAX_ANSWER_BYTES),
    ("GET /history/p1", lambda c: c.history("p1"), MAX_ANSWER_BYTES),
    ("GET /system_stats", lambda c: c.system_stats(), MAX_ANSWER_BYTES),
    ("GET /api/jobs/p1", lambda c: c.job("p1"), MAX_ANSWER_BYTES),
    ("GET /object_info", lambda c: c.object_info(), MAX_CATALOGUE_BYTES),
]


NAMES = [route for route, _, _ in ROUTES]


@pytest.fixture
def peak_memory() -> Iterator[Callable[[], int]]:
    """The peak of Python's traced allocations since the test began, in bytes."""
    tracemalloc.start()
    yield lambda: tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()


@pytest.mark.parametrize(("route", "call", "limit"), ROUTES, ids=NAMES)
async def test_a_1_gb_answer_stops_at_the_routes_limit(
    hostile: HostileServer,
    connect: Callable[..., ComfyClient],
    peak_memory: Callable[[], int],
    route: str,
    call: Call,
    limit: int,
) -> None:
    """Counted, not timed: the server sent little past the limit and memory held about it."""
    hostile.behaviours[route] = huge(GB)
    with pytest.raises(ComfyAnswerTooLarge) as caught:
        await call(connect(hostile.url))
    assert str(caught.value) == (
        f"{route}: answer exceeds the limit of {limit // MIB} MiB, not read further"
    )
    assert plain_reason(caught.value) == "", "its own words say it best"
    assert caught.value.limit == limit
    assert hostile.sent[route] < limit + SOCKET_SLACK, "stopped reading past the limit"
    assert peak_memory() < 3 * limit, "held about the limit, not the answer"


@pytest.mark.parametrize(("route", "call", "limit"), ROUTES[:2], ids=NAMES[:2])
async def test_a_declared_size_over_the_limit_is_refused_before_reading(
    hostile: HostileServer, connect: Callable[..., ComfyClient], route: str, call: Call, limit: int
) -> None:
    hostile.behaviours[route] = huge(GB, declared=True)
    with pytest.raises(ComfyAnswerTooLarge, match=f"answer is {GB} bytes, limit 16 MiB"):
        await call(connect(hostile.url))
    assert hostile.sent[route] < SOCKET_SLACK


async def test_an_error_answer_is_quoted_from_its_first_bytes_only(
    hostile: HostileServer, connect: Callable[..., ComfyClient]
) -> None:
    hostile.behaviours["GET /queue"] = huge(GB, prefix=b"<html>overloaded ", status=503)
    with pytest.raises(ComfyServerError, match=r"GET /queue: HTTP 503: <html>overloaded x+$"):
        await connect(hostile.url).queue()
    assert hostile.sent["GET /queue"] < SOCKET_SLACK


@pytest.mark.parametrize(("route", "call", "limit"), ROUTES, ids=NAMES)
async def test_a_trickling_answer_ends_at_the_deadline(
    hostile: HostileServer, connect: Callable[..., ComfyClient], route: str, call: Call, limit: int
) -> None:
    """The trickle never ends nor lets the read timeout fire: only the deadline (its message
    names it) ends the request, not before it; without it the wait would end at the hang bound."""
    hostile.behaviours[route] = trickle(0.05)
    started = time.monotonic()
    async with asyncio.timeout(HANG_S):
        with pytest.raises(ComfyTimeout) as caught:
            await call(connect(hostile.url, deadline=0.5))
    assert str(caught.value) == f"{route}: no complete answer within 0.5 s (the server is stuck)"
    assert time.monotonic() - started >= 0.5
    assert hostile.sent[route] > 2, "the server kept sending: only the deadline stopped it"


async def test_the_deadline_defaults_to_the_read_timeout(
    hostile: HostileServer, connect: Callable[..., ComfyClient]
) -> None:
    hostile.behaviours["GET /queue"] = trickle(0.05)
    with pytest.raises(ComfyTimeout, match=r"within 0\.4 s"):
        await connect(hostile.url, timeout=httpx.Timeout(0.4)).queue()


@pytest.mark.parametrize(("route", "call", "limit"), ROUTES, ids=NAMES)
async def test_garbage_is_a_protocol_error_naming_the_route(
    hostile: HostileServer, connect: Callable[..., ComfyClient], route: str, call: Call, limit: int
) -> None:
    hostile.behaviours[route] = garbage()
    with pytest.raises(ComfyProtocolError, match=f"^{route}: ") as caught:
        await call(connect(hostile.url))
    assert plain_reason(caught.value) == "it answers, but not as ComfyUI does"

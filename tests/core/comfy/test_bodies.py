"""A hostile server cannot hang or exhaust the client: every answer has a size limit and every
request a deadline, on every route, and a WebSocket's garbage or flood is logged and dropped
in bounds (tests/core/hostile.py answers them badly on purpose)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.comfy import Backoff, ComfyClient, Connected, Disconnected, ImageRef, Reconnected, Status
from core.comfy import listener as listener_module
from core.comfy.bodies import MAX_ANSWER_BYTES, MAX_CATALOGUE_BYTES, MIB
from core.comfy.http_errors import plain_reason
from core.comfy.listener import CLOSE_TIMEOUT_S, FLOOD_MESSAGES
from core.errors import (
    ComfyAnswerTooLarge,
    ComfyOutputTooLarge,
    ComfyProtocolError,
    ComfyServerError,
    ComfyTimeout,
)
from tests.core.hostile import GB, HostileServer, garbage, huge, trickle, ws_messages

pytestmark = pytest.mark.asyncio

# What the loopback socket's buffers may hold beyond what the client read.
SOCKET_SLACK = 16 * MIB

Call = Callable[[ComfyClient], Awaitable[Any]]

HANG_S = 20.0  # bounds a wait that, broken, would never end: not a measure of speed
QUICK_CLOSE_S = 0.5  # our close timeout, made short: closing a flooded socket waits this long
BEFORE_LIBRARY_CLOSE_S = 5.0  # well above it, well below websockets' own close timeout (10 s)

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


async def test_a_trickling_picture_ends_at_the_download_deadline(
    hostile: HostileServer, connect: Callable[..., ComfyClient], tmp_path: Path
) -> None:
    hostile.behaviours["GET /view"] = trickle(0.05, prefix=b"\x89PNG")
    """A download has its own, longer deadline (named in the message, not ended before it)."""
    client = connect(hostile.url, deadline=0.2, download_deadline=0.6)
    started = time.monotonic()
    async with asyncio.timeout(HANG_S):
        with pytest.raises(ComfyTimeout, match=r"^GET /view: no complete answer within 0.6 s"):
            await client.download(ImageRef("a.png"), tmp_path / "a.png")
    assert time.monotonic() - started >= 0.6
    assert list(tmp_path.iterdir()) == [], "no part file left behind"


async def test_a_huge_picture_is_still_cut_at_its_limit(
    hostile: HostileServer, connect: Callable[..., ComfyClient], tmp_path: Path
) -> None:
    hostile.behaviours["GET /view"] = huge(GB, prefix=b"\x89PNG")
    with pytest.raises(ComfyOutputTooLarge, match="output exceeds the limit of 4 MiB"):
        await connect(hostile.url).download(
            ImageRef("a.png"), tmp_path / "a.png", max_bytes=4 * MIB
        )
    assert hostile.sent["GET /view"] < 4 * MIB + SOCKET_SLACK
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("route", "call", "limit"), ROUTES, ids=NAMES)
async def test_garbage_is_a_protocol_error_naming_the_route(
    hostile: HostileServer, connect: Callable[..., ComfyClient], route: str, call: Call, limit: int
) -> None:
    hostile.behaviours[route] = garbage()
    with pytest.raises(ComfyProtocolError, match=f"^{route}: ") as caught:
        await call(connect(hostile.url))
    assert plain_reason(caught.value) == "it answers, but not as ComfyUI does"


# --- the WebSocket ------------------------------------------------------------------------------

STATUS = json.dumps({"type": "status", "data": {"status": {"exec_info": {"queue_remaining": 1}}}})


def listener_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "core.comfy.listener" and r.levelno == logging.WARNING
    ]


@pytest.mark.expect_log("core.comfy.listener")
async def test_a_garbage_stream_is_logged_once_with_a_count(
    hostile: HostileServer, connect: Callable[..., ComfyClient], caplog: pytest.LogCaptureFixture
) -> None:
    garbage_count = 3000  # then one status, so the test knows all were read
    hostile.behaviours["WS /ws"] = ws_messages(
        lambda n: STATUS if n == garbage_count else f"not json {n}", count=garbage_count + 1
    )
    listener = connect(hostile.url).listener(backoff=Backoff(initial=0.02, cap=0.2))
    async with asyncio.timeout(20), listener as events:
        kinds = [type(await anext(events)).__name__ for _ in range(2)]
    assert kinds == ["Connected", "Status"]
    first, summary = listener_warnings(caplog)
    assert first == (
        f"ignoring malformed WebSocket messages from {listener.url}, first: "
        "WS /ws: body is not JSON (JSONDecodeError)"
    )
    assert summary == (
        f"ignored {garbage_count - 1} more malformed WebSocket messages from {listener.url}, "
        "latest: WS /ws: body is not JSON (JSONDecodeError)"
    )


async def test_a_busy_server_is_not_a_flood(
    hostile: HostileServer, connect: Callable[..., ComfyClient]
) -> None:
    busy = 10_000  # within a few seconds: a server finishing hundreds of short jobs a second
    hostile.behaviours["WS /ws"] = ws_messages(lambda n: STATUS, count=busy)
    statuses = 0
    async with asyncio.timeout(20), connect(hostile.url).listener() as events:
        async for event in events:
            assert not isinstance(event, Disconnected), event
            statuses += isinstance(event, Status)
            if statuses == busy:
                break
    assert hostile.connections["WS /ws"] == 1


async def next_within(events: AsyncIterator[Any]) -> Any:
    """The next event, which must come before websockets' own close timeout would end."""
    async with asyncio.timeout(BEFORE_LIBRARY_CLOSE_S):
        return await anext(events)


@pytest.mark.expect_log("core.comfy.listener")
async def test_a_flood_is_dropped_and_the_socket_opened_again_after_a_backoff(
    hostile: HostileServer,
    connect: Callable[..., ComfyClient],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The flood is dropped (its socket closed within our close timeout, not the library's
    10 s: each event comes within a bound between the two) and the socket opened again no
    sooner than the backoff."""
    flood = 5000  # the mechanism, at a tenth of the limit: quick under coverage too
    assert flood < FLOOD_MESSAGES
    monkeypatch.setattr(listener_module, "FLOOD_MESSAGES", flood)
    # a window no busy machine outlasts reading them (the count starts over after one)
    monkeypatch.setattr(listener_module, "FLOOD_WINDOW_S", 600.0)
    monkeypatch.setattr(listener_module, "CLOSE_TIMEOUT_S", QUICK_CLOSE_S)
    hostile.behaviours["WS /ws"] = ws_messages(lambda n: STATUS)
    listener = connect(hostile.url).listener(backoff=Backoff(initial=0.2, cap=1.0, jitter=0))
    statuses = 0
    async with asyncio.timeout(60), listener as events:
        while not isinstance(event := await next_within(events), Disconnected):
            statuses += isinstance(event, Status)
        dropped_at = time.monotonic()
        assert isinstance(await anext(events), Reconnected)
        reopened_after = time.monotonic() - dropped_at
    assert statuses == flood, "all passed until the flood limit, none after"
    assert event.reason == f"dropped a flood (more than {flood} messages within 600 s)"
    assert reopened_after >= 0.2
    (warning,) = listener_warnings(caplog)
    assert warning == f"WebSocket {listener.url} {event.reason}; retrying in 0.20 s"
    assert hostile.connections["WS /ws"] == 2


async def test_closing_a_listener_flooded_by_its_server_takes_moments(
    hostile: HostileServer, connect: Callable[..., ComfyClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing does not wait for the flooded server's close frame longer than our close
    timeout (made short here): the close is bounded well below the library's own 10 s."""
    assert CLOSE_TIMEOUT_S < BEFORE_LIBRARY_CLOSE_S, "the real one is well below it too"
    monkeypatch.setattr(listener_module, "CLOSE_TIMEOUT_S", QUICK_CLOSE_S)
    hostile.behaviours["WS /ws"] = ws_messages(lambda n: STATUS)
    listener = connect(hostile.url).listener()
    try:
        async with asyncio.timeout(20):
            assert isinstance(await anext(listener), Connected)
            await asyncio.sleep(1)  # the flood fills every buffer while nobody reads
    finally:
        async with asyncio.timeout(BEFORE_LIBRARY_CLOSE_S):
            await listener.aclose()


@pytest.mark.expect_log("core.comfy.listener")
async def test_malformed_messages_are_counted_once_per_interval(
    hostile: HostileServer,
    connect: Callable[..., ComfyClient],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(listener_module, "MALFORMED_REPORT_S", 0.0)  # every one is past due
    hostile.behaviours["WS /ws"] = ws_messages(lambda n: STATUS if n == 3 else "[", count=4)
    async with asyncio.timeout(20), connect(hostile.url).listener() as events:
        kinds = [type(await anext(events)).__name__ for _ in range(2)]
    assert kinds == ["Connected", "Status"]
    first, *counts = listener_warnings(caplog)
    assert first.startswith("ignoring malformed WebSocket messages from ws://")
    assert [c.split(" from ")[0] for c in counts] == [
        "ignored 1 more malformed WebSocket messages"
    ] * 2

"""The WebSocket listener: event order, filtering, reconnects and auth against the simulator;
frames and handshakes the simulator lacks against a scripted aiohttp WebSocket; a hostile
server's garbage or flood logged and dropped in bounds."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as websockets_connect

from core.comfy import (
    Backoff,
    BearerAuth,
    ComfyClient,
    Connected,
    Disconnected,
    Event,
    Executed,
    Executing,
    ExecutionCached,
    ExecutionError,
    ExecutionStart,
    ExecutionSuccess,
    Listener,
    PreviewImage,
    Progress,
    Reconnected,
    Status,
    new_prompt_id,
)
from core.comfy import listener as listener_module
from core.comfy.listener import CLOSE_TIMEOUT_S, FLOOD_MESSAGES
from core.errors import (
    ComfyAuthError,
)
from simulator import Simulator
from tests.core.comfy.conftest import HANG_S
from tests.core.hostile import HostileServer, ws_messages

QUICK_CLOSE_S = 0.5  # our close timeout, made short: closing a flooded socket waits this long


BEFORE_LIBRARY_CLOSE_S = 5.0  # well above it, well below websockets' own close timeout (10 s)


STATUS = json.dumps({"type": "status", "data": {"status": {"exec_info": {"queue_remaining": 1}}}})


def listener_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "core.comfy.listener" and r.levelno == logging.WARNING
    ]


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


Connect = Callable[..., ComfyClient]


MakeSimulator = Callable[..., Awaitable[Simulator]]


Workflow = Callable[..., dict[str, Any]]


def fast() -> Backoff:
    return Backoff(initial=0.02, cap=0.2)


async def collect_until(
    listener: Listener, stop: Callable[[Event], bool], limit: float = 10
) -> list[Event]:
    """Events up to and including the first one ``stop`` accepts."""
    events: list[Event] = []
    async with asyncio.timeout(limit):
        async for event in listener:
            events.append(event)
            if stop(event):
                break
    return events


def done(prompt_id: str) -> Callable[[Event], bool]:
    return lambda event: event == Executing(prompt_id, None)


@pytest.mark.asyncio
async def test_event_order_for_one_prompt(
    simulator: Simulator, connect: Connect, make_workflow: Workflow
) -> None:
    client = connect(simulator.url)
    prompt_id = new_prompt_id()
    async with client.listener(backoff=fast()) as listener:
        assert await anext(listener) == Connected(client.client_id)
        await client.submit(make_workflow(5), prompt_id)
        events = await collect_until(listener, done(prompt_id))
    lifecycle = [e for e in events if not isinstance(e, Status | Progress)]
    kinds = [type(e) for e in lifecycle]
    assert kinds[:2] == [ExecutionStart, ExecutionCached]
    assert kinds[-2:] == [ExecutionSuccess, Executing]
    assert Executed in kinds
    assert kinds.index(Executed) < kinds.index(ExecutionSuccess)
    nodes = [e.node for e in lifecycle if isinstance(e, Executing)]
    assert nodes == ["1", "2", None]
    executed = next(e for e in lifecycle if isinstance(e, Executed))
    assert executed.images[0].filename.endswith(".png")
    entry = await client.history(prompt_id)  # written before executing(None)
    assert entry is not None
    assert entry.images == executed.images


@pytest.mark.asyncio
async def test_execution_error_carries_the_classified_failure(
    simulator: Simulator, connect: Connect, make_workflow: Workflow
) -> None:
    simulator.fail_next(1, kind="oom")
    simulator.fail_next(1, kind="error")
    client = connect(simulator.url)
    first, second = new_prompt_id(), new_prompt_id()
    async with client.listener(backoff=fast()) as listener:
        await anext(listener)
        await client.submit(make_workflow(1), first)
        await client.submit(make_workflow(2), second)
        events = await collect_until(listener, done(second))
    errors = {e.prompt_id: e.failure.kind for e in events if isinstance(e, ExecutionError)}
    assert errors == {first: "oom", second: "other"}


@pytest.mark.asyncio
async def test_reconnect_is_announced_and_events_resume(
    simulator: Simulator, connect: Connect, make_workflow: Workflow
) -> None:
    client = connect(simulator.url)
    async with client.listener(backoff=fast()) as listener:
        await anext(listener)
        await collect_until(listener, lambda e: isinstance(e, Status))  # the greeting
        await simulator.drop_websockets()
        events = await collect_until(listener, lambda e: isinstance(e, Reconnected))
        assert isinstance(events[0], Disconnected)
        assert events[-1] == Reconnected(client.client_id, attempt=1)
        prompt_id = new_prompt_id()
        await client.submit(make_workflow(9), prompt_id)
        after = await collect_until(listener, done(prompt_id))
    assert any(isinstance(e, ExecutionSuccess) for e in after)
    assert simulator.stats()["websockets"] <= 1


@pytest.mark.asyncio
async def test_restart_mid_job_is_announced(
    make_simulator: MakeSimulator, connect: Connect, make_workflow: Workflow
) -> None:
    simulator = await make_simulator(job_seconds=5.0)
    client = connect(simulator.url)
    prompt_id = new_prompt_id()
    async with client.listener(backoff=fast()) as listener:
        await anext(listener)
        await client.submit(make_workflow(), prompt_id)
        await collect_until(listener, lambda e: isinstance(e, ExecutionStart))
        await simulator.restart()
        events = await collect_until(listener, lambda e: isinstance(e, Reconnected))
    assert not any(isinstance(e, ExecutionSuccess) for e in events)
    assert (await client.lookup(prompt_id)).state.value == "unknown"


@pytest.mark.asyncio
async def test_token_on_the_websocket(make_simulator: MakeSimulator, connect: Connect) -> None:
    simulator = await make_simulator(token="s3cret")
    async with connect(simulator.url).listener(backoff=fast()) as listener:
        with pytest.raises(ComfyAuthError):
            await anext(listener)
    client = connect(simulator.url, auth=BearerAuth("s3cret"))
    async with client.listener(backoff=fast()) as listener:
        assert await anext(listener) == Connected(client.client_id)
        assert isinstance(await anext(listener), Status)


@pytest.mark.asyncio
async def test_server_stop_then_back_on_the_same_port(
    make_simulator: MakeSimulator, connect: Connect
) -> None:
    simulator = await make_simulator()
    client = connect(simulator.url)
    port = int(simulator.url.rsplit(":", 1)[1])
    async with client.listener(backoff=fast()) as listener:
        await anext(listener)
        await simulator.stop()
        drops = await collect_until(listener, lambda e: isinstance(e, Disconnected), limit=5)
        assert isinstance(drops[-1], Disconnected)
        await simulator.start(port=port)
        events = await collect_until(listener, lambda e: isinstance(e, Reconnected))
    failed = [e for e in events if isinstance(e, Disconnected)]
    assert all(e.retry_in > 0 for e in failed)


BEFORE_OPEN_TIMEOUT_S = 5.0  # well below the handshake's own 10 s timeout, which aclose cuts


def fast_scripted() -> Backoff:
    return Backoff(initial=0.02, cap=0.1)


def text(kind: str, data: dict[str, Any]) -> str:
    return json.dumps({"type": kind, "data": data})


@dataclass
class Script:
    """What the scripted server sends per connection, and what it saw."""

    frames: list[str | bytes] = field(default_factory=list)
    close_after: bool = False
    status: int = 101
    handshakes: list[dict[str, str]] = field(default_factory=list)
    received: list[str] = field(default_factory=list)  # the client's text messages


@pytest_asyncio.fixture
async def script() -> AsyncIterator[tuple[Script, str]]:
    script = Script()

    async def ws(request: web.Request) -> web.StreamResponse:
        script.handshakes.append({**request.headers, "clientId": request.query["clientId"]})
        if script.status != 101:
            return web.Response(status=script.status)
        sock = web.WebSocketResponse()
        await sock.prepare(request)
        for frame in script.frames:
            if isinstance(frame, bytes):
                await sock.send_bytes(frame)
            else:
                await sock.send_str(frame)
        if not script.close_after:
            async for message in sock:
                script.received.append(message.data)
        await sock.close()
        return sock

    app = web.Application()
    app.router.add_get("/ws", ws)
    runner = web.AppRunner(app, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    yield script, f"http://127.0.0.1:{port}"
    await runner.cleanup()


async def take(listener: Listener, count: int) -> list[Event]:
    events: list[Event] = []
    async with asyncio.timeout(5):
        async for event in listener:
            events.append(event)
            if len(events) == count:
                break
    return events


P1_FRAMES: list[str | bytes] = [
    text("status", {"status": {"exec_info": {"queue_remaining": 1}}, "sid": "me"}),
    text("executing", {"node": "3"}),  # the reconnect message: names no prompt
    b"\x00\x00\x00\x01\x00\x00\x00\x02PNGDATA",  # a preview naming no prompt
    b"\x00\x00\x00\x03\x00\x00\x00\x01" + b"3progress text",  # text: not used
    b"\x00\x00\x00\x04",  # too short
    text("crystools.monitor", {"cpu": 3}),
    "{broken",
    text("execution_start", {"prompt_id": "p2", "timestamp": 1}),
    text("execution_start", {"prompt_id": "p1", "timestamp": 2}),
    text("executing", {"node": None, "prompt_id": "p1"}),
]


@pytest.mark.asyncio
@pytest.mark.expect_log("core.comfy.listener")
async def test_junk_is_skipped_and_the_unattributed_executing_kept(
    script: tuple[Script, str],
) -> None:
    server, url = script
    server.frames = P1_FRAMES
    client = ComfyClient(url, client_id="me")
    async with client, client.listener(backoff=fast_scripted()) as listener:
        events = await take(listener, 7)
    assert events == [
        Connected("me"),
        Status(queue_remaining=1),
        Executing(prompt_id=None, node="3"),
        PreviewImage(None, None, "image/png", b"PNGDATA"),
        ExecutionStart("p2", 1),
        ExecutionStart("p1", 2),
        Executing("p1", None),
    ]
    assert listener.skipped == 2, "the short frame and the broken text: what they said is unknown"


def with_metadata(meta: dict[str, Any], image: bytes) -> bytes:
    encoded = json.dumps(meta).encode()
    return (4).to_bytes(4, "big") + len(encoded).to_bytes(4, "big") + encoded + image


@pytest.mark.asyncio
@pytest.mark.expect_log("core.comfy.listener")
async def test_previews_ask_for_their_prompt_and_name_it(script: tuple[Script, str]) -> None:
    """The first message asks for previews with metadata (as ComfyUI's frontend does); a type 4
    frame names its prompt and node; metadata claiming more bytes than the frame is skipped."""
    server, url = script
    meta = {"node_id": "3", "prompt_id": "p1", "display_node_id": "3", "image_type": "image/jpeg"}
    server.frames = [
        with_metadata({**meta, "node_id": "9"}, b"")[:8] + b"\xff\xff",  # length past the end
        with_metadata(meta, b"JPEGDATA"),
        with_metadata({"prompt_id": 7, "image_type": "image/gif"}, b"X"),  # odd values: no names
    ]
    client = ComfyClient(url, client_id="me")
    async with client, client.listener(backoff=fast_scripted()) as listener:
        events = await take(listener, 3)
        await asyncio.sleep(0.05)
    assert events[1:] == [
        PreviewImage("p1", "3", "image/jpeg", b"JPEGDATA"),
        PreviewImage(None, None, "image/png", b"X"),
    ]
    assert [json.loads(m) for m in server.received[:1]] == [
        {"type": "feature_flags", "data": {"supports_preview_metadata": True}}
    ]


@pytest.mark.asyncio
async def test_drop_is_announced_then_reconnect_with_same_id(script: tuple[Script, str]) -> None:
    server, url = script
    server.frames = [text("status", {"status": {"exec_info": {"queue_remaining": 0}}})]
    server.close_after = True
    auth = BearerAuth("tok")
    client = ComfyClient(url, client_id="me", auth=auth)
    async with client, client.listener(backoff=fast_scripted()) as listener:
        events = await take(listener, 4)
    assert isinstance(events[0], Connected)
    assert isinstance(events[2], Disconnected)
    assert events[2].retry_in > 0
    assert events[3] == Reconnected("me", attempt=1)
    assert {h["clientId"] for h in server.handshakes} == {"me"}
    assert all(h["Authorization"] == "Bearer tok" for h in server.handshakes)
    assert not any("Origin" in h for h in server.handshakes)


@pytest.mark.asyncio
async def test_refused_credentials_end_the_listener(script: tuple[Script, str]) -> None:
    server, url = script
    server.status = 401
    async with ComfyClient(url) as client, client.listener(backoff=fast_scripted()) as listener:
        with pytest.raises(ComfyAuthError, match="WS /ws"):
            await take(listener, 1)


@pytest.mark.asyncio
async def test_big_messages_pass(script: tuple[Script, str]) -> None:
    server, url = script
    blob = {"images": [{"filename": "x" * 2_000_000, "subfolder": "", "type": "output"}]}
    server.frames = [text("executed", {"node": "9", "output": blob, "prompt_id": "p"})]
    async with ComfyClient(url) as client, client.listener(backoff=fast_scripted()) as listener:
        events = await take(listener, 2)
    assert len(events[1].images[0].filename) == 2_000_000  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_aclose_ends_a_waiting_iteration(script: tuple[Script, str]) -> None:
    _, url = script
    async with ComfyClient(url) as client:
        listener = client.listener(backoff=fast_scripted())
        assert isinstance(await anext(listener), Connected)
        waiting = asyncio.create_task(anext(listener))
        await asyncio.sleep(0.05)
        await listener.aclose()
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(waiting, HANG_S)  # not closed: it would wait for ever
        assert not listener.connected


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.asyncio
async def test_unreachable_server_backs_off_and_closes_promptly() -> None:
    async with ComfyClient(f"http://127.0.0.1:{free_port()}") as client:
        listener = client.listener(backoff=Backoff(initial=0.05, factor=2.0, cap=0.2, jitter=0.0))
        events = await take(listener, 3)
        assert [e.retry_in for e in events] == [0.05, 0.1, 0.2]  # type: ignore[union-attr]
        waiting = asyncio.create_task(anext(listener))
        await asyncio.sleep(0.01)
        await listener.aclose()
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(waiting, HANG_S)  # not closed: the next retry's event


@pytest.mark.asyncio
async def test_aclose_cuts_a_hanging_handshake() -> None:
    accepted = asyncio.Event()
    writers: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        accepted.set()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with ComfyClient(f"http://127.0.0.1:{port}") as client:
        listener = client.listener(backoff=fast_scripted())
        waiting = asyncio.create_task(anext(listener))
        await asyncio.wait_for(accepted.wait(), HANG_S)
        await listener.aclose()
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(waiting, BEFORE_OPEN_TIMEOUT_S)
    for writer in writers:
        writer.close()
    server.close()
    await server.wait_closed()


@pytest.mark.asyncio
async def test_a_socket_opened_just_as_its_reader_is_cancelled_is_closed(
    script: tuple[Script, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, url = script
    opened: list[ClientConnection] = []

    async def connect_then_cancelled(*args: Any, **kwargs: Any) -> ClientConnection:
        socket = await websockets_connect(*args, **kwargs)
        opened.append(socket)
        # Runs after this handshake ends and before the reader resumes to take its socket.
        asyncio.get_running_loop().call_soon(reader.cancel)
        return socket

    monkeypatch.setattr(listener_module, "connect", connect_then_cancelled)
    async with ComfyClient(url) as client:
        listener = client.listener(backoff=fast_scripted())
        reader = asyncio.create_task(anext(listener))
        with pytest.raises(asyncio.CancelledError):
            await reader
        await listener.aclose()
    (socket,) = opened
    assert socket.transport.is_closing(), "no one else holds it: closed, not left open"

"""Listener against a scripted aiohttp WebSocket: frames and handshakes the simulator lacks."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
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
    Executing,
    ExecutionStart,
    Listener,
    PreviewImage,
    Reconnected,
    Status,
)
from core.comfy import listener as listener_module
from core.errors import ComfyAuthError

HANG_S = 20.0  # bounds a wait that, broken, would never end: not a measure of speed
BEFORE_OPEN_TIMEOUT_S = 5.0  # well below the handshake's own 10 s timeout, which aclose cuts


def fast() -> Backoff:
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
    async with client, client.listener(backoff=fast()) as listener:
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
    async with client, client.listener(backoff=fast()) as listener:
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
    async with client, client.listener(backoff=fast()) as listener:
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
    async with ComfyClient(url) as client, client.listener(backoff=fast()) as listener:
        with pytest.raises(ComfyAuthError, match="WS /ws"):
            await take(listener, 1)


@pytest.mark.asyncio
async def test_big_messages_pass(script: tuple[Script, str]) -> None:
    server, url = script
    blob = {"images": [{"filename": "x" * 2_000_000, "subfolder": "", "type": "output"}]}
    server.frames = [text("executed", {"node": "9", "output": blob, "prompt_id": "p"})]
    async with ComfyClient(url) as client, client.listener(backoff=fast()) as listener:
        events = await take(listener, 2)
    assert len(events[1].images[0].filename) == 2_000_000  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_aclose_ends_a_waiting_iteration(script: tuple[Script, str]) -> None:
    _, url = script
    async with ComfyClient(url) as client:
        listener = client.listener(backoff=fast())
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
        listener = client.listener(backoff=fast())
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
        listener = client.listener(backoff=fast())
        reader = asyncio.create_task(anext(listener))
        with pytest.raises(asyncio.CancelledError):
            await reader
        await listener.aclose()
    (socket,) = opened
    assert socket.transport.is_closing(), "no one else holds it: closed, not left open"

"""The WebSocket side of the server: ``GET /ws`` (register, greet with ``status``, answer
``feature_flags``), the sockets by clientId and ComfyUI's routing of messages."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from typing import TYPE_CHECKING, Any

from aiohttp import WSCloseCode, WSMsgType, web

if TYPE_CHECKING:
    from simulator.state import ServerState


log = logging.getLogger(__name__)
PREVIEW = "<preview>"  # an outbox entry holding a binary preview, not a JSON message
MAX_UPLOAD_SIZE = 104_857_600


def features() -> dict[str, Any]:
    """ComfyUI's feature flags: answered on the socket (``feature_flags``) and at ``/features``."""
    return {"supports_preview_metadata": True, "max_upload_size": MAX_UPLOAD_SIZE}


class WebSocketRoute:
    """ComfyUI's websocket handler over the simulator's socket hub."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        sid = request.rel_url.query.get("clientId", "") or uuid.uuid4().hex
        hub = self.state.hub
        hub.register(sid, ws)
        try:
            await hub.send_now(ws, "status", self.state.status_data(sid))
            if self.state.running_client == sid and self.state.last_node_id is not None:
                await hub.send_now(ws, "executing", {"node": self.state.last_node_id})
            await self._listen(ws, sid)
        finally:
            hub.unregister(sid, ws)
        return ws

    async def _listen(self, ws: web.WebSocketResponse, sid: str) -> None:
        first = True
        async for message in ws:
            if message.type == WSMsgType.TEXT and first:
                await self._maybe_feature_flags(ws, sid, message.data)
            first = False

    async def _maybe_feature_flags(self, ws: web.WebSocketResponse, sid: str, text: str) -> None:
        try:
            data = json.loads(text)
        except ValueError:
            return
        if not isinstance(data, dict) or data.get("type") != "feature_flags":
            return
        flags = data.get("data")
        if isinstance(flags, dict) and flags.get("supports_preview_metadata") is True:
            self.state.hub.with_metadata.add(sid)
        await self.state.hub.send_now(ws, "feature_flags", features())


# The WebSocket side of the server: sockets by clientId and ComfyUI's routing of messages.


class SocketHub:
    """Registered sockets by clientId; sends a message to one client or to all of them.

    Messages are queued and written by one task in order, like ComfyUI's ``send_sync`` →
    ``publish_loop``, so the worker never waits on a slow socket.
    """

    def __init__(self) -> None:
        self.sockets: dict[str, web.WebSocketResponse] = {}
        self.with_metadata: set[str] = set()  # clients that asked for preview metadata
        self._outbox: asyncio.Queue[tuple[str, Any, str | None]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._publish_loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.close_all()

    def send(self, event: str, data: Any, sid: str | None) -> None:
        """Queue ``{"type": event, "data": data}`` for client ``sid``, or for all if None."""
        self._outbox.put_nowait((event, data, sid))

    def send_preview(self, image: bytes, metadata: dict[str, Any], sid: str | None) -> None:
        """Queue a JPEG preview: type 4 with ``metadata`` to clients that asked for it, type 1
        (format 1, JPEG) to the others, as ComfyUI's ``send`` does."""
        self._outbox.put_nowait((PREVIEW, (image, metadata), sid))

    def register(self, sid: str, ws: web.WebSocketResponse) -> None:
        self.sockets[sid] = ws

    def unregister(self, sid: str, ws: web.WebSocketResponse) -> None:
        # ComfyUI pops by id, even if a newer socket took the id over (protocol pitfall 7).
        self.sockets.pop(sid, None)
        self.with_metadata.discard(sid)

    async def close_all(self) -> None:
        sockets = list(self.sockets.values())
        self.sockets.clear()
        for ws in sockets:
            with contextlib.suppress(Exception):
                await ws.close(code=WSCloseCode.GOING_AWAY, message=b"simulated restart")

    async def send_now(self, ws: web.WebSocketResponse, event: str, data: Any) -> None:
        await _send(ws, event, data)

    async def _publish_loop(self) -> None:
        while True:
            event, data, sid = await self._outbox.get()
            if sid is None:
                targets = list(self.sockets.items())
            else:
                targets = [(sid, ws)] if (ws := self.sockets.get(sid)) is not None else []
            for target, ws in targets:
                if event == PREVIEW:
                    image, metadata = data
                    await _send_preview(ws, image, metadata, target in self.with_metadata)
                else:
                    await _send(ws, event, data)


async def _send_preview(
    ws: web.WebSocketResponse, image: bytes, metadata: dict[str, Any], with_metadata: bool
) -> None:
    if with_metadata:
        meta = json.dumps({**metadata, "image_type": "image/jpeg"}).encode()
        frame = b"".join((_u32(4), _u32(len(meta)), meta, image))
    else:
        frame = b"".join((_u32(1), _u32(1), image))
    if ws.closed:
        return
    try:
        await ws.send_bytes(frame)
    except (ConnectionError, RuntimeError) as exc:
        log.debug("dropping a preview to a closed socket: %s", exc)


def _u32(value: int) -> bytes:
    return value.to_bytes(4, "big")


async def _send(ws: web.WebSocketResponse, event: str, data: Any) -> None:
    if ws.closed:
        return
    try:
        await ws.send_str(json.dumps({"type": event, "data": data}))
    except (ConnectionError, RuntimeError) as exc:
        log.debug("dropping a message to a closed socket: %s", exc)

"""``GET /ws``: register the socket, greet with ``status``, answer ``feature_flags``."""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

from aiohttp import WSMsgType, web

from simulator.system_info import features

if TYPE_CHECKING:
    from simulator.state import ServerState


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

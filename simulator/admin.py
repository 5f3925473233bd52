"""The simulator's own control routes under ``/_sim``: faults, restart, socket drops, stats."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from simulator.responses import json_body, json_response

if TYPE_CHECKING:
    from aiohttp import web

    from simulator.config import FaultSettings


class Controls(Protocol):
    """What the routes steer: a simulator's faults, restart, socket drops and stats."""

    @property
    def faults(self) -> FaultSettings: ...

    def set_faults(self, **changes: Any) -> None: ...

    async def restart(self) -> None: ...

    async def drop_websockets(self) -> None: ...

    def stats(self) -> dict[str, Any]: ...


class AdminRoutes:
    """``POST /_sim/faults``, ``POST /_sim/restart``, ``POST /_sim/drop_websockets``,
    ``GET /_sim/stats``: what tests use to steer a simulator in another process or thread."""

    def __init__(self, simulator: Controls) -> None:
        self.sim = simulator

    def install(self, app: web.Application) -> None:
        app.router.add_post("/_sim/faults", self.post_faults)
        app.router.add_post("/_sim/restart", self.post_restart)
        app.router.add_post("/_sim/drop_websockets", self.post_drop_websockets)
        app.router.add_get("/_sim/stats", self.get_stats)

    async def post_faults(self, request: web.Request) -> web.StreamResponse:
        try:
            body: Any = await json_body(request)
            self.sim.set_faults(**body)
        except (ValueError, TypeError) as exc:
            return json_response({"error": str(exc)}, status=400)
        return json_response(self.sim.faults.to_json())

    async def post_restart(self, request: web.Request) -> web.StreamResponse:
        await self.sim.restart()
        return json_response(self.sim.stats())

    async def post_drop_websockets(self, request: web.Request) -> web.StreamResponse:
        await self.sim.drop_websockets()
        return json_response(self.sim.stats())

    async def get_stats(self, request: web.Request) -> web.StreamResponse:
        return json_response(self.sim.stats())

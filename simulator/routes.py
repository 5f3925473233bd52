"""A route table that registers every ComfyUI route twice: as ``/x`` and as ``/api/x``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class DualRoutes:
    """Collects (method, path, handler) and adds each under both prefixes to an application."""

    def __init__(self) -> None:
        self.routes: list[tuple[str, str, Handler]] = []

    def add(self, method: str, path: str, handler: Handler) -> None:
        self.routes.append((method, path, handler))

    def install(self, app: web.Application) -> None:
        """Add every route; paths already under ``/api/`` (the jobs API) get no twin."""
        for method, path, handler in self.routes:
            app.router.add_route(method, path, handler)
            if not path.startswith("/api/"):
                app.router.add_route(method, "/api" + path, handler)

"""A local aiohttp server that takes webhooks, for the notify tests: it keeps every JSON body
POSTed to it; ``answer`` says what it answers (a status), ``hold`` makes it wait before
answering (an asyncio.Event it waits for, or seconds)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from aiohttp import web


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class WebhookServer:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.bodies: list[Any] = []
        self.paths: list[str] = []
        self.answer = 200
        self.hold: float = 0.0
        self.entered = asyncio.Event()  # a request came in (set before any hold)
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._take)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _take(self, request: web.Request) -> web.Response:
        self.entered.set()
        if self.hold:
            await asyncio.sleep(self.hold)
        if self.answer == 200:
            self.bodies.append(await request.json())
            self.paths.append(request.path)
        return web.Response(status=self.answer)

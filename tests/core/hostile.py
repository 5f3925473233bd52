"""A hostile ComfyUI stand-in: an aiohttp app on loopback that answers chosen routes badly on
purpose (endless bodies, trickles, garbage, WebSocket floods), counting what it sent.

Bodies are generated as they are sent, never held in memory: a "1 GB answer" costs the test
one 64 KiB chunk. Routes not given a behaviour answer 404 (the WebSocket included).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future

from aiohttp import WSMsgType, web

CHUNK = 64 * 1024
GB = 1024**3

Behaviour = Callable[["HostileServer", web.Request, str], Awaitable[web.StreamResponse]]


def huge(
    total: int = GB, *, prefix: bytes = b'{"pad": "', declared: bool = False, status: int = 200
) -> Behaviour:
    """An answer of ``total`` bytes (JSON-looking, never ending in time), sent as it is made;
    ``declared`` also says its size in Content-Length."""

    async def answer(server: HostileServer, request: web.Request, route: str) -> web.StreamResponse:
        response = web.StreamResponse(status=status, headers={"Content-Type": "application/json"})
        if declared:
            response.content_length = total
        await response.prepare(request)
        chunk = b"x" * CHUNK
        with contextlib.suppress(ConnectionError):
            await server.send(response, route, prefix)
            while server.sent[route] < total:
                await server.send(response, route, chunk[: total - server.sent[route]])
        return response

    return answer


def trickle(interval: float = 0.2, prefix: bytes = b"{") -> Behaviour:
    """A 200 whose body comes one byte every ``interval`` seconds, for ever."""

    async def answer(server: HostileServer, request: web.Request, route: str) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        with contextlib.suppress(ConnectionError):
            await server.send(response, route, prefix)
            while True:
                await asyncio.sleep(interval)
                await server.send(response, route, b" ")
        return response

    return answer


def answer_json(value: object) -> Behaviour:
    """A well-formed 200 carrying ``value`` (for server-chosen text: versions, names)."""

    async def answer(server: HostileServer, request: web.Request, route: str) -> web.StreamResponse:
        body = json.dumps(value).encode()
        server.sent[route] += len(body)
        return web.Response(body=body, content_type="application/json")

    return answer


def garbage(size: int = 4096) -> Behaviour:
    """A 200 of random bytes."""

    async def answer(server: HostileServer, request: web.Request, route: str) -> web.StreamResponse:
        server.sent[route] += size
        return web.Response(body=os.urandom(size), content_type="application/json")

    return answer


def ws_messages(make: Callable[[int], str], count: int | None = None) -> Behaviour:
    """A WebSocket that sends ``make(n)`` for n = 0, 1, ... as fast as it can (``count``
    messages, then nothing; None: until the client leaves). ``sent[route]`` counts messages and
    ``connections[route]`` the sockets opened."""

    async def answer(server: HostileServer, request: web.Request, route: str) -> web.StreamResponse:
        socket = web.WebSocketResponse(autoping=True)
        await socket.prepare(request)
        server.connections[route] += 1
        reader = asyncio.create_task(_drain(socket))
        with contextlib.suppress(ConnectionError):
            number = 0
            while not socket.closed and not reader.done() and number != count:
                await socket.send_str(make(number))
                server.sent[route] += 1
                number += 1
                await asyncio.sleep(0)
            await reader
        reader.cancel()
        return socket

    return answer


async def _drain(socket: web.WebSocketResponse) -> None:
    """Read (and drop) what the client sends, so its close is seen."""
    async for message in socket:
        if message.type in (WSMsgType.CLOSE, WSMsgType.ERROR):
            return


class HostileServer:
    """The app: ``behaviours["GET /queue"] = huge()``; ``sent`` counts bytes (messages on a
    WebSocket) by route; ``url`` once started."""

    def __init__(self) -> None:
        self.behaviours: dict[str, Behaviour] = {}
        self.sent: collections.Counter[str] = collections.Counter()
        self.connections: collections.Counter[str] = collections.Counter()
        self.requests: collections.Counter[str] = collections.Counter()
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def send(self, response: web.StreamResponse, route: str, data: bytes) -> None:
        """Write ``data`` and count it once the transport took it."""
        await response.write(data)
        self.sent[route] += len(data)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        websocket = request.headers.get("Upgrade", "").lower() == "websocket"
        route = f"{'WS' if websocket else request.method} {request.path}"
        self.requests[route] += 1
        behaviour = self.behaviours.get(route)
        if behaviour is None:
            return web.Response(status=404, text="404: Not Found")
        return await behaviour(self, request, route)


class HostileThread:
    """A HostileServer on its own thread and loop, for commands that run their own loop."""

    def __init__(self, server: HostileServer) -> None:
        self.server = server
        # Not new_event_loop(): under a GUI test's qasync policy that would be a Qt loop.
        self._loop = asyncio.DefaultEventLoopPolicy().new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def start(self) -> str:
        self._thread.start()
        return self._run(self.server.start())

    def stop(self) -> None:
        self._run(self.server.stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def _run(self, work: Awaitable[str] | Awaitable[None]) -> str:
        future: Future[str] = asyncio.run_coroutine_threadsafe(work, self._loop)  # type: ignore[arg-type]
        return future.result(30)

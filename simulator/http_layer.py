"""The HTTP layer under ComfyUI's routes: a route table that registers each route as ``/x``
and ``/api/x``, answers shaped like aiohttp's and ComfyUI's, and the request middlewares
(token auth, then injected delays, 500s, dropped connections and spoiled answers)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from aiohttp.typedefs import Middleware

    from simulator.config import FaultSettings
    from simulator.faults import HttpFaults


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


# Answers shaped like aiohttp's and ComfyUI's: JSON, empty 200s and the generic text 500.

SERVER_ERROR_TEXT = "500 Internal Server Error\n\nServer got itself in trouble"


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, dumps=json.dumps)


def empty_ok() -> web.Response:
    return web.Response(status=200)


def server_error() -> web.Response:
    """What aiohttp answers when a ComfyUI handler raises (non-JSON body, wrong types...)."""
    return web.Response(status=500, text=SERVER_ERROR_TEXT)


class ClientGone(web.HTTPClientError):
    """The client hung up before sending the whole body: there is nobody left to answer (and
    aiohttp would log it as an error of the server's)."""

    status_code = 499


async def json_body(request: web.Request) -> Any:
    """The decoded body; raises ValueError on non-JSON like ``request.json()`` does, ClientGone
    when the client hung up mid-body."""
    try:
        text = await request.text()
    except ConnectionResetError as exc:
        raise ClientGone() from exc
    return json.loads(text)


# Request middlewares: token auth, then injected delays, 500s and dropped connections.

LATE_QUEUE = web.RequestKey("late_queue", float)  # set on a request: wait this long to queue it


def token_accepted(header: str, token: str) -> bool:
    """``Bearer <token>``, or basic auth with the token as password (any user name)."""
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer":
        return hmac.compare_digest(value.strip(), token)
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return False
        return hmac.compare_digest(decoded.partition(":")[2], token)
    return False


def auth_middleware(token: str) -> Middleware:
    """Refuse every request (HTTP and WebSocket upgrade) without the token: 401."""

    @web.middleware
    async def check(request: web.Request, handler: Handler) -> web.StreamResponse:
        if token_accepted(request.headers.get("Authorization", ""), token):
            return await handler(request)
        return web.Response(status=401, text="401: Unauthorized", headers={
            "WWW-Authenticate": 'Bearer realm="batchline-simulator"'
        })  # fmt: skip

    return check


def drop_connection(request: web.Request) -> web.StreamResponse:
    """Abort the socket; aiohttp cannot write the placeholder answer, so the client gets none."""
    transport = request.transport
    if transport is not None:
        transport.abort()
    return web.Response(status=499)


def fault_middleware(faults: HttpFaults) -> Middleware:
    """Delay answers, answer 500, drop the connection before or after the handler ran, or
    queue (or answer) a prompt late."""

    @web.middleware
    async def inject(request: web.Request, handler: Handler) -> web.StreamResponse:
        hold = faults.hold_on(request.method, request.path)
        if hold is not None:
            hold.arrived.set()
            await hold.released.wait()
        if not faults.applies(request.method, request.path):
            return await handler(request)
        if faults.settings.delay_seconds > 0:
            await asyncio.sleep(faults.settings.delay_seconds)
        decision = faults.decide(request.method, request.path)
        if decision == "error":
            return server_error()
        if decision == "drop":
            return drop_connection(request)
        if decision == "late_queue":
            request[LATE_QUEUE] = faults.settings.late_seconds  # the handler waits to queue
        response = await handler(request)
        if decision == "late_answer":
            await asyncio.sleep(faults.settings.late_seconds)
        if decision == "drop_after_queue":
            return drop_connection(request)
        if decision in HOSTILE and isinstance(response, web.Response):
            return await hostile_answer(request, response, decision, faults.settings)
        return response

    return inject


HOSTILE = frozenset({"garbage", "trickle", "huge"})
HUGE_PADDING = 20 * 1024 * 1024  # past any JSON answer's size limit in the client
TRICKLE_MAX_BYTES = 60  # a trickled answer ends (the connection is cut) after this many bytes


async def hostile_answer(
    request: web.Request, response: web.Response, kind: str, settings: FaultSettings
) -> web.StreamResponse:
    """The answer the handler made, spoiled: not JSON, trickled, or padded to 20 MiB."""
    if kind == "garbage":
        return web.Response(status=200, body=b"\x00<html>not json", content_type="text/html")
    body = response.body if isinstance(response.body, bytes) else b""
    stream = web.StreamResponse(status=response.status)
    stream.content_type = response.content_type
    await stream.prepare(request)
    try:
        if kind == "huge":
            chunk = b" " * (1024 * 1024)
            for _ in range(HUGE_PADDING // len(chunk)):
                await stream.write(chunk)
            await stream.write(body)
        else:
            for index in range(min(len(body), TRICKLE_MAX_BYTES)):
                await stream.write(body[index : index + 1])
                await asyncio.sleep(settings.trickle_seconds)
            if len(body) > TRICKLE_MAX_BYTES and request.transport is not None:
                request.transport.abort()  # a minute is enough: the rest never comes
                return stream
    except ConnectionError:  # the client gave up: as it should
        return stream
    await stream.write_eof()
    return stream

"""Request middlewares: token auth, then injected delays, 500s and dropped connections."""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
from typing import TYPE_CHECKING

from aiohttp import web

from core.simulator.responses import server_error

LATE_QUEUE = web.RequestKey("late_queue", float)  # set on a request: wait this long to queue it

if TYPE_CHECKING:
    from aiohttp.typedefs import Middleware

    from core.simulator.faults import HttpFaults
    from core.simulator.routes import Handler


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
        return response

    return inject

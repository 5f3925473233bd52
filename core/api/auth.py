"""Bearer tokens: every route but the OpenAPI document needs ``Authorization: Bearer TOKEN``;
the token's name is the requester the request acts as."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from aiohttp import web

from core.api.errors import ApiError
from core.api.reads import off_the_loop

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from core.ledger import Ledger

PUBLIC_PATHS = frozenset({"/v1/openapi.json"})
REQUESTER: web.RequestKey[str] = web.RequestKey("requester")  # who the request acts as
LEDGER: web.AppKey[Ledger] = web.AppKey("ledger")
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="batchline"'}


def requester_of(request: web.Request) -> str:
    return request[REQUESTER]


@web.middleware
async def bearer_auth(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    if request.path not in PUBLIC_PATHS:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            message = "send 'Authorization: Bearer TOKEN' (batchline tokens create NAME)"
            raise ApiError(401, message, _CHALLENGE)
        tokens = request.app[LEDGER].tokens
        requester = await off_the_loop(request, partial(tokens.requester, token.strip()))
        if requester is None:
            raise ApiError(401, "this token is not known (revoked, or never made)", _CHALLENGE)
        request[REQUESTER] = requester
    return await handler(request)

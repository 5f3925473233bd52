"""Answers shaped like aiohttp's and ComfyUI's: JSON, empty 200s and the generic text 500."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

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

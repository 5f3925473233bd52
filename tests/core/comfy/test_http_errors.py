"""HTTP status codes and transport failures mapped onto the error tree."""

from __future__ import annotations

import httpx
import pytest

from core.comfy import ComfyClient
from core.errors import (
    ComfyAuthError,
    ComfyConnectionError,
    ComfyNotFound,
    ComfyProtocolError,
    ComfyServerError,
    ComfyTimeout,
    ComfyUnreachable,
)
from tests.core.comfy.conftest import Handler, raw


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "error"),
    [
        (500, ComfyServerError),
        (502, ComfyServerError),
        (429, ComfyServerError),
        (401, ComfyAuthError),
        (403, ComfyAuthError),
        (404, ComfyNotFound),
        (408, ComfyTimeout),
        (418, ComfyProtocolError),
    ],
)
async def test_status_codes_map_to_the_error_tree(
    mock_client: ComfyClient, routes: dict[str, Handler], status: int, error: type[Exception]
) -> None:
    routes["GET /queue"] = raw("500 Internal Server Error\n\nServer got itself in trouble", status)
    with pytest.raises(error, match=rf"GET /queue: (credentials refused \()?HTTP {status}"):
        await mock_client.queue()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("exc", "error"),
    [
        (httpx.ConnectError("refused"), ComfyUnreachable),
        (httpx.ConnectTimeout("slow"), ComfyUnreachable),
        (httpx.PoolTimeout("busy"), ComfyUnreachable),
        (httpx.ReadError("reset"), ComfyConnectionError),
        (httpx.WriteError("broken pipe"), ComfyConnectionError),
        (httpx.RemoteProtocolError("closed early"), ComfyConnectionError),
        (httpx.ReadTimeout("slow"), ComfyTimeout),
    ],
)
async def test_transport_failures_map_to_transient_errors(
    mock_client: ComfyClient,
    routes: dict[str, Handler],
    exc: httpx.HTTPError,
    error: type[Exception],
) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise exc

    routes["POST /prompt"] = fail
    with pytest.raises(error, match="POST /prompt") as raised:
        await mock_client.submit({}, "p")
    # Only a failure to connect proves that nothing was sent.
    assert isinstance(raised.value, ComfyUnreachable) == (error is ComfyUnreachable)

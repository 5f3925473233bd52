"""Helpers for the ComfyUI client tests: recorded exchanges and MockTransport clients."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from core.comfy import ComfyClient

RECORDINGS = Path(__file__).resolve().parents[2] / "data" / "recordings"

Handler = Callable[[httpx.Request], httpx.Response]


def _recording(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDINGS / f"{name}.json").read_text())
    return data


@pytest.fixture
def recording() -> Callable[[str], dict[str, Any]]:
    """Loads one recorded exchange (``request``, ``status``, ``response``) by name."""
    return _recording


@pytest.fixture
def routes() -> dict[str, Handler]:
    """``"METHOD /path"`` → handler; tests fill it, the mock client routes on it."""
    return {}


@pytest_asyncio.fixture
async def mock_client(routes: dict[str, Handler]) -> AsyncIterator[ComfyClient]:
    """A ComfyClient over httpx.MockTransport; unrouted requests answer 404."""

    def handle(request: httpx.Request) -> httpx.Response:
        handler = routes.get(f"{request.method} {request.url.path}")
        return handler(request) if handler else httpx.Response(404, text="404: Not Found")

    client = ComfyClient("http://127.0.0.1:8188", transport=httpx.MockTransport(handle))
    yield client
    await client.aclose()

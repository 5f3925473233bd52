"""Helpers for the ComfyUI client tests: recorded exchanges and MockTransport clients."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from core.comfy import ComfyClient, HistoryEntry
from core.comfy.bodies import MIB

RECORDINGS = Path(__file__).resolve().parents[2] / "data" / "recordings"

Handler = Callable[[httpx.Request], httpx.Response]
Recording = Callable[[str], dict[str, Any]]

PNG = b"\x89PNG\r\n\x1a\n" + b"x" * 100

# What the loopback socket's buffers may hold beyond what the client read.
SOCKET_SLACK = 16 * MIB

HANG_S = 20.0  # bounds a wait that, broken, would never end: not a measure of speed


def answer(body: Any, status: int = 200) -> Handler:
    return lambda request: httpx.Response(status, json=body)


def raw(text: str, status: int = 200) -> Handler:
    return lambda request: httpx.Response(status, text=text)


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


# --- simulator-backed helpers -------------------------------------------------------------------


def workflow(color: int = 1, *, width: int = 16, prefix: str = "t/img") -> dict[str, Any]:
    """A minimal valid job: EmptyImage → SaveImage (vary ``color`` to avoid the cache)."""
    return {
        "1": {
            "class_type": "EmptyImage",
            "inputs": {"width": width, "height": 16, "batch_size": 1, "color": color},
        },
        "2": {
            "class_type": "SaveImage",
            "inputs": {"images": ["1", 0], "filename_prefix": prefix},
        },
    }


@pytest.fixture
def make_workflow() -> Callable[..., dict[str, Any]]:
    return workflow


@pytest_asyncio.fixture
async def connect() -> AsyncIterator[Callable[..., ComfyClient]]:
    """A factory of ComfyClients that are all closed after the test."""
    clients: list[ComfyClient] = []

    def make(url: str, **options: Any) -> ComfyClient:
        clients.append(ComfyClient(url, **options))
        return clients[-1]

    yield make
    for client in clients:
        await client.aclose()


async def wait_until_finished(client: ComfyClient, prompt_id: str) -> HistoryEntry:
    """Poll ``/history/{id}`` until the entry exists (bounded)."""
    async with asyncio.timeout(10):
        while True:  # polling is the point: history is the source of truth
            entry = await client.history(prompt_id)
            if entry is not None:
                return entry
            await asyncio.sleep(0.02)


async def wait_until_running(client: ComfyClient, prompt_id: str) -> None:
    async with asyncio.timeout(10):
        while True:
            if (await client.queue()).place_of(prompt_id) == "running":
                return
            await asyncio.sleep(0.01)


@pytest.fixture
def finished() -> Callable[[ComfyClient, str], Awaitable[HistoryEntry]]:
    return wait_until_finished


@pytest.fixture
def running() -> Callable[[ComfyClient, str], Awaitable[None]]:
    return wait_until_running

"""API fixtures: the app served on a loopback port in the test's event loop, over a real
ledger holding the noise preset, with a client per token."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest_asyncio

from core.api import ApiConfig, serve_api
from core.controller.backpressure import Limits
from core.ledger import Ledger
from core.presets import preset_from_api
from core.presets.storing import store_preset
from tests.core.helpers import NOISE_WORKFLOW


@dataclass
class Api:
    url: str
    ledger: Ledger
    tokens: dict[str, str]
    client: Callable[..., httpx.AsyncClient]


@pytest_asyncio.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    """Limits: 4 unfinished jobs per requester, 6 in all."""
    with Ledger(tmp_path / "home") as ledger:
        store_preset(ledger, "noise", preset_from_api(NOISE_WORKFLOW, Path("noise.json")))
        tokens = {name: ledger.tokens.create(name) for name in ("alice", "bob")}
        config = ApiConfig("127.0.0.1", 0, Limits(4, 6))
        async with serve_api(ledger, config) as url:

            def client(name: str | None = "alice") -> httpx.AsyncClient:
                headers = {"Authorization": f"Bearer {tokens[name]}"} if name else {}
                return httpx.AsyncClient(base_url=url, headers=headers, timeout=10)

            yield Api(url, ledger, tokens, client)

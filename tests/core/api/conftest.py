"""API fixtures: the app served on a loopback port in the test's event loop, over a real
ledger holding the noise preset, with a client per token."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from core.api import ApiConfig, serve_api
from core.api.quiet_log import HTTP_LOG, quiet_logger
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


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, object]]:
    """A whole answer's status and JSON body (the server closes the connection after it)."""
    data = await reader.read()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


@pytest.fixture
def fresh_quiet_log() -> Iterator[logging.Logger]:
    """The API's quiet logger with a filter of its own (none held back by an earlier test)."""
    logger = logging.getLogger(HTTP_LOG)
    kept = list(logger.filters)
    for old in kept:
        logger.removeFilter(old)
    yield quiet_logger()
    for new in list(logger.filters):
        logger.removeFilter(new)
    for old in kept:
        logger.addFilter(old)

"""Controller fixtures: a real simulator, a real client, a controller between (the ledger:
tests/core/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest_asyncio

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.comfy import DEFAULT_TIMEOUT, ComfyClient
from core.controller import Controller
from core.ledger import Ledger
from simulator import Simulator
from tests.core.helpers import FAST


def queue(ledger: Ledger, count: int, requester: str = "alice", start: int = 1) -> list[str]:
    spec = BatchSpec(seeds=SeedPlan(count=count, start=start), requester=requester)
    return queue_batch(ledger, "noise", spec)[1]


MakeController = Callable[..., Awaitable[Controller]]


@pytest_asyncio.fixture
async def make_controller(tmp_path: Path) -> AsyncIterator[MakeController]:
    """``await make_controller(ledger, simulator, **config)``: a started controller (on several
    servers when given a list of simulators; ``client_timeout`` for its clients' requests)."""
    made: list[tuple[Controller, list[ComfyClient]]] = []

    async def make(
        ledger: Ledger,
        simulator: Simulator | list[Simulator],
        client_timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        **config: Any,
    ) -> Controller:
        simulators = simulator if isinstance(simulator, list) else [simulator]
        clients = [ComfyClient(s.url, timeout=client_timeout) for s in simulators]
        controller = Controller(
            ledger, clients, config=FAST.with_overrides(**config), output_dir=tmp_path / "out"
        )
        await controller.start()
        made.append((controller, clients))
        return controller

    yield make
    for controller, clients in made:
        await controller.stop()
        for client in clients:
            await client.aclose()


def executions(simulator: Simulator, ledger: Ledger, job_id: str) -> int:
    return sum(simulator.execution_count(a.prompt_id) for a in ledger.attempts(job_id))

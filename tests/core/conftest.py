"""Fixtures for core tests: a fresh simulated ComfyUI per test, on an ephemeral loopback port;
a ledger holding the noise preset."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from simulator import FaultSettings, Simulator, SimulatorConfig
from tests.core.helpers import NOISE_WORKFLOW
from tests.core.hostile import HostileServer

MakeSimulator = Callable[..., Awaitable[Simulator]]

# Fast defaults for tests: short jobs, no emulated CPU cost for ImageBlur.
TEST_DEFAULTS: dict[str, Any] = {"job_seconds": 0.05, "cpu_time_scale": 0.0}


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    """A ledger in a temporary folder holding the preset "noise" (NOISE_WORKFLOW)."""
    with Ledger(tmp_path / "home") as opened:
        opened.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
        yield opened


@pytest_asyncio.fixture
async def make_simulator(tmp_path: Path) -> AsyncIterator[MakeSimulator]:
    """A factory: ``await make_simulator(version="0.38.1", token="t", faults={...})``
    (``port``: on that port, else any free one).

    Keyword arguments are `SimulatorConfig` fields (``faults`` may be a dict of
    `FaultSettings` fields). Every simulator made is started, and stopped after the test.
    """
    started: list[Simulator] = []

    async def make(port: int = 0, **config: Any) -> Simulator:
        options = {**TEST_DEFAULTS, **config}
        options.setdefault("output_dir", tmp_path / f"sim-output-{len(started)}")
        if isinstance(options.get("faults"), dict):
            options["faults"] = FaultSettings(**options["faults"])
        simulator = Simulator(SimulatorConfig(**options))
        await simulator.start(port=port)
        started.append(simulator)
        return simulator

    yield make
    for simulator in started:
        await simulator.stop()


@pytest_asyncio.fixture
async def simulator(make_simulator: MakeSimulator) -> Simulator:
    """A started ComfyUI 0.3.64 simulator with 0.05 s jobs and its output under tmp_path."""
    return await make_simulator()


@pytest_asyncio.fixture
async def hostile() -> AsyncIterator[HostileServer]:
    """A started hostile ComfyUI stand-in (tests/core/hostile.py): give routes behaviours."""
    server = HostileServer()
    await server.start()
    yield server
    await server.stop()

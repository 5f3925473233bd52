"""Two real simulators with different model lists, and their offers stored as the controller
stores them (``ledger.server_offers``): for the tests of what the doors say of placement."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.ledger import Ledger, PresetContent
from core.placement.server_offer import offer_from_object_info
from core.presets import workflow_hash
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread
from tests.simulator.sim_helpers import checkpoint

BASE = "sd_xl_base_1.0.safetensors"
REFINER = "sd_xl_refiner_1.0.safetensors"
NOWHERE = "nowhere_1.0.safetensors"


def ckpt_workflow(name: str = BASE) -> dict[str, Any]:
    """A text-to-image workflow whose checkpoint is ``name``."""
    prompt = checkpoint(seed=1, steps=2)
    prompt["4"]["inputs"]["ckpt_name"] = name
    return prompt


@dataclass
class ModelServers:
    """``full`` lists both SDXL checkpoints, ``base_only`` the base alone."""

    full: SimulatorThread
    base_only: SimulatorThread

    @property
    def urls(self) -> list[str]:
        return [self.base_only.url, self.full.url]

    def store_offers(self, ledger: Ledger) -> None:
        """Read each server's /object_info into the ledger, as a link does on connecting."""
        for thread in (self.base_only, self.full):
            info = httpx.get(thread.url + "/object_info", timeout=30).json()
            ledger.server_offers.store(thread.url, offer_from_object_info(info))


def start(tmp_path: Path, name: str, *checkpoints: str) -> SimulatorThread:
    config = SimulatorConfig(
        job_seconds=0.05,
        cpu_time_scale=0.0,
        output_dir=tmp_path / name,
        models={"checkpoints": list(checkpoints)},
    )
    thread = SimulatorThread(config)
    thread.start()
    return thread


@pytest.fixture
def model_servers(tmp_path: Path) -> Iterator[ModelServers]:
    servers = ModelServers(start(tmp_path, "full", BASE, REFINER), start(tmp_path, "base", BASE))
    yield servers
    servers.full.stop()
    servers.base_only.stop()


def add_ckpt_preset(ledger: Ledger, name: str = "ckpt") -> str:
    workflow = ckpt_workflow()
    ledger.presets.add(name, PresetContent(workflow_hash(workflow), workflow))
    return name

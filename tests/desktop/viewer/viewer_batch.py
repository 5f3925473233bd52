"""A batch run for real on the simulator, for the viewer's tests (the fixtures in conftest and
the tests that queue a batch of their own)."""

from __future__ import annotations

from pathlib import Path

from core.batch import BatchSpec, queue_batch
from core.comfy import ComfyClient
from core.controller import Controller
from core.job_state import JobState
from core.ledger import Ledger
from tests.core.helpers import FAST
from tests.desktop.helpers import until

SEEDS = (700, 701, 702)


def run_batch(qloop, ledger: Ledger, simulator, preset: str, spec: BatchSpec, out: Path):
    """Queue the batch and let a real controller run it on the simulator until it is done."""

    async def scenario() -> list[str]:
        _, ids = queue_batch(ledger, preset, spec)
        client = ComfyClient(simulator.url)
        controller = Controller(ledger, client, config=FAST, output_dir=out)
        await controller.start()
        try:
            await until(lambda: all(ledger.job(i).state is JobState.succeeded for i in ids), 30)
        finally:
            await controller.stop()
            await client.aclose()
        return ids

    return qloop.run_until_complete(scenario())

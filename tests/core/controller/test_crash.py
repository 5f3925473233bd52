"""The controller killed with SIGKILL at random moments: no job lost, no prompt run twice."""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import Callable

import pytest

from core.job_state import AttemptResult, JobState
from core.ledger import Ledger
from core.simulator import Simulator
from tests.core.controller.conftest import queue

pytestmark = [pytest.mark.asyncio, pytest.mark.slow]

CHILD = """
import asyncio, sys
from pathlib import Path
from core.comfy import ComfyClient
from core.controller import Controller, ControllerConfig
from core.ledger import Ledger

async def main():
    with Ledger(Path(sys.argv[2])) as ledger:
        async with ComfyClient(sys.argv[1]) as client:
            config = ControllerConfig(poll_active_s=0.05, poll_idle_s=0.2, grace_s=0.3)
            controller = Controller(ledger, client, config=config, output_dir=Path(sys.argv[3]))
            await controller.run_until_idle()

asyncio.run(main())
"""


async def _run_controller(
    simulator: Simulator, ledger: Ledger, out: str, kill_after: float | None
) -> int:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        simulator.url,
        str(ledger.folder),
        out,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    if kill_after is not None:
        try:
            await asyncio.wait_for(proc.wait(), kill_after)
        except TimeoutError:
            proc.kill()  # SIGKILL: no cleanup of any kind
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    if kill_after is None:
        assert proc.returncode == 0, err.decode()
    return proc.returncode


async def test_sigkill_at_random_moments(
    ledger: Ledger, make_simulator: Callable[..., object], tmp_path: object
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.15)  # type: ignore[misc]
    ids = queue(ledger, 12)
    chance = random.Random(20261130)
    for _ in range(5):
        await _run_controller(simulator, ledger, f"{tmp_path}/out", chance.uniform(0.3, 1.2))
    await _run_controller(simulator, ledger, f"{tmp_path}/out", None)

    assert [ledger.job(job_id).state for job_id in ids] == [JobState.succeeded] * 12
    for job_id in ids:
        attempts = ledger.attempts(job_id)
        assert [a.result for a in attempts].count(AttemptResult.succeeded) == 1
        for attempt in attempts:
            assert simulator.execution_count(attempt.prompt_id) <= 1, "a prompt ran twice"

"""The controller killed with SIGKILL at random moments: no job lost, no prompt run twice.

An end-to-end story across modules (a real `Controller` in a child process, the ledger, the
simulator), kept in its own file rather than under one module's tests."""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
from collections.abc import Callable

import pytest

from core.job_state import AttemptResult, JobState
from core.ledger import Ledger
from simulator import Simulator
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
        clients = [ComfyClient(url) for url in sys.argv[1].split(",")]
        config = ControllerConfig(poll_active_s=0.05, poll_idle_s=0.2, grace_s=0.3, settle_s=1.0)
        controller = Controller(ledger, clients, config=config, output_dir=Path(sys.argv[3]))
        await controller.run_until_idle()
        for client in clients:
            await client.aclose()

asyncio.run(main())
"""


async def _run_controller(
    simulators: list[Simulator], ledger: Ledger, out: str, kill_after: float | None
) -> int:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CHILD,
        ",".join(simulator.url for simulator in simulators),
        str(ledger.folder),
        out,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    if kill_after is not None:
        try:
            await asyncio.wait_for(proc.wait(), kill_after)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):  # it may end as the time runs out
                proc.kill()  # SIGKILL: no cleanup of any kind
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    if kill_after is None:
        assert proc.returncode == 0, err.decode()
    return proc.returncode


@pytest.mark.parametrize("servers", [1, 2])
async def test_sigkill_at_random_moments(
    ledger: Ledger, make_simulator: Callable[..., object], tmp_path: object, servers: int
) -> None:
    sims: list[Simulator] = [await make_simulator(job_seconds=0.15) for _ in range(servers)]  # type: ignore[misc]
    ids = queue(ledger, 12)
    chance = random.Random(20261130)
    for _ in range(5):
        await _run_controller(sims, ledger, f"{tmp_path}/out", chance.uniform(0.3, 1.2))
    await _run_controller(sims, ledger, f"{tmp_path}/out", None)

    assert [ledger.job(job_id).state for job_id in ids] == [JobState.succeeded] * 12
    for job_id in ids:
        attempts = ledger.attempts(job_id)
        assert [a.result for a in attempts].count(AttemptResult.succeeded) == 1
        for attempt in attempts:
            runs = sum(sim.execution_count(attempt.prompt_id) for sim in sims)
            assert runs <= 1, "a prompt ran twice"
    assert all(sim.stats()["execution_counts"] for sim in sims), "every server worked"

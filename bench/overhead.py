"""Benchmark: what Batchline adds to ComfyUI's own time for a batch.

Baseline: every prompt of the batch POSTed at once straight to a fresh simulated ComfyUI, then
waited for (the fastest any client can get the work done). Batchline: the same batch through the
ledger and the controller with the default caps (3 in ComfyUI at a time), outputs downloaded.
Both run in this process against their own simulator, with the same per-job time. Then the same
batch through Batchline driving two simulated servers at once.
Run: `.venv/bin/python -m bench.overhead [--jobs 30] [--job-seconds 0.2]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.feed import WORKFLOW, all_at_once
from core.batch import BatchSpec, SeedPlan, queue_batch
from core.comfy import ComfyClient
from core.controller import Controller, ControllerConfig
from core.job_state import JobState
from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from simulator import Simulator, SimulatorConfig


async def baseline(jobs: int, sim_config: SimulatorConfig) -> float:
    async with Simulator(sim_config) as sim:
        _, elapsed = await all_at_once(sim.url, jobs)
        return elapsed


async def through_batchline(
    jobs: int, sim_config: SimulatorConfig, folder: Path, servers: int = 1
) -> float:
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for n in range(servers):
            config = replace(sim_config, output_dir=sim_config.output_dir / f"server-{n}")
            sim = await stack.enter_async_context(Simulator(config))
            clients.append(await stack.enter_async_context(ComfyClient(sim.url)))
        with Ledger(folder / f"home-{servers}") as ledger:
            ledger.presets.add("bench", PresetContent(workflow_hash(WORKFLOW), WORKFLOW))
            queue_batch(ledger, "bench", BatchSpec(seeds=SeedPlan(count=jobs, start=1)))
            controller = Controller(
                ledger, clients, config=ControllerConfig(), output_dir=folder / "out"
            )
            start = time.perf_counter()
            await controller.run_until_idle()
            elapsed = time.perf_counter() - start
            done = ledger.count_by_state().get(JobState.succeeded, 0)
            assert done == jobs, f"only {done} of {jobs} jobs succeeded"
            return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=30)
    parser.add_argument("--job-seconds", type=float, default=0.2)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = SimulatorConfig(
            job_seconds=options.job_seconds, cpu_time_scale=0.0, output_dir=Path(folder) / "server"
        )
        base = await baseline(options.jobs, config)
        ours = await through_batchline(options.jobs, config, Path(folder))
        two = await through_batchline(options.jobs, config, Path(folder), servers=2)
    ideal = options.jobs * options.job_seconds
    print(
        f"jobs: {options.jobs} x {options.job_seconds:.2f} s of simulated GPU time "
        f"({ideal:.1f} s ideal)"
    )
    print(f"baseline (all POSTed at once): {base:.2f} s")
    print(f"through Batchline (cap 3, outputs downloaded): {ours:.2f} s")
    print(f"ratio batchline/baseline: {ours / base:.3f}")
    print(
        f"through Batchline on two servers: {two:.2f} s "
        f"(speed-up over one server {ours / two:.2f}x; ideal 2x)"
    )


if __name__ == "__main__":
    asyncio.run(main())

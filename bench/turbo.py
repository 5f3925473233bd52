"""Benchmark: turbo-class jobs (90 ms) fed with the default settings, against all at once.

The figure of issue 28: a one-step sampler's jobs take about 90 ms, and the shallow caps
(3: one running, two waiting) left the GPU idle whenever a refill came later than the 180 ms
the waiting prompts last. For each setting, ``--pairs`` pairs of runs: a batch POSTed all at
once to a fresh server (the baseline), and the same batch fed by Batchline to another. Printed
per setting: the makespan ratio (the server's own, from its history; median and range), the
GPU's idle time between jobs, and the dry spells (gaps over 20 ms: the queue ran empty), on a
quiet simulator and on one that answers every request 50 ms late (`SERVERS`). The settings:
the old defaults (``deep_queue`` false, caps 3: said explicitly), today's defaults (``"auto"``)
and ``--deep-queue 8 --per-requester 8``. It prints; nothing is asserted.

Run: `.venv/bin/python -m bench.turbo [--pairs N] [--jobs N] [--server URL]` (in `make bench`).
``--server URL``: a real ComfyUI with the tiny models (`../shared/tools/real-comfyui`) runs a
one-step KSampler job instead (both halves of a pair on it, one after the other).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bench import feed
from core.comfy import ComfyClient
from core.controller import ControllerConfig

if TYPE_CHECKING:
    from collections.abc import Sequence

JOB_SECONDS = 0.09  # a one-step sampler's job on the real ComfyUI here
DRY_S = 0.02  # a gap between two jobs longer than this: the queue ran empty
# The simulator quiet, and answering every request 50 ms late: a server busy running a job
# answers slowly (ComfyUI's HTTP server shares its process and, on a CPU, the cores with the
# sampler), so a refill takes a /queue and a /prompt round trip more than the quiet figure.
SERVERS = (("quiet simulator", ()), ("every answer 50 ms late", ("--delay", "0.05")))
SETTINGS = (
    ("old defaults (deep queue off, caps 3)", ControllerConfig(deep_queue=False)),
    ("defaults (auto)", ControllerConfig()),
    ("deep queue 8, per requester 8", feed.DEEP),
)
# A real sampler, one step, on the tiny SD 1.5 checkpoint (``--server``); the KSampler is node
# "2", whose seed `bench.feed` varies from job to job.
TURBO_WORKFLOW = {
    "1": {
        "class_type": "CheckpointLoaderSimple",
        "inputs": {"ckpt_name": "tiny-sd15-a.safetensors"},
    },
    "2": {
        "class_type": "KSampler",
        "inputs": {
            "model": ["1", 0],
            "positive": ["3", 0],
            "negative": ["4", 0],
            "latent_image": ["5", 0],
            "seed": 1,
            "steps": 1,
            "cfg": 1.0,
            "sampler_name": "euler",
            "scheduler": "simple",
            "denoise": 1.0,
        },
    },
    "3": {"class_type": "CLIPTextEncode", "inputs": {"text": "a red fox", "clip": ["1", 1]}},
    "4": {"class_type": "CLIPTextEncode", "inputs": {"text": "", "clip": ["1", 1]}},
    "5": {"class_type": "EmptyLatentImage", "inputs": {"width": 64, "height": 64, "batch_size": 1}},
    "6": {"class_type": "VAEDecode", "inputs": {"samples": ["2", 0], "vae": ["1", 2]}},
    "7": {"class_type": "SaveImage", "inputs": {"images": ["6", 0], "filename_prefix": "turbo"}},
}


@dataclass(frozen=True)
class Run:
    """One pair: the makespans, and the GPU's idle time between Batchline's jobs."""

    ratio: float
    ours: float
    base: float
    idle: float  # seconds between jobs, summed
    dry: int  # gaps over DRY_S


async def idle_gaps(url: str, prompt_ids: Sequence[str]) -> list[float]:
    """The gaps between one job's end and the next one's start, as the server's history says."""
    async with ComfyClient(url) as client:
        entries = [await client.history(pid) for pid in prompt_ids]
    spans = sorted(
        (e.started_at, e.finished_at)
        for e in entries
        if e is not None and e.started_at is not None and e.finished_at is not None
    )
    return [max(0.0, later[0] - earlier[1]) for earlier, later in itertools.pairwise(spans)]


async def one_pair(
    folder: Path, server: str | None, jobs: int, config: ControllerConfig, *extra: str
) -> Run:
    """One batch all at once and one through Batchline, each on a fresh simulator started
    with ``extra`` options (or both on ``server``)."""
    with contextlib.ExitStack() as stack:
        if server is None:
            base_url = stack.enter_context(feed.simulators(1, JOB_SECONDS, folder, *extra))[0]
            our_url = stack.enter_context(feed.simulators(1, JOB_SECONDS, folder, *extra))[0]
        else:
            base_url = our_url = server
        base_ids, _ = await feed.all_at_once(base_url, jobs)
        base = await feed.server_makespan(base_url, base_ids)
        home = Path(tempfile.mkdtemp(dir=folder))
        ledger, job_ids = feed._ledger_with_batch(home, jobs)
        with ledger:
            await feed.through_batchline(ledger, [our_url], config, home / "out")
            ours_ids = feed._succeeded_prompts(ledger, job_ids)
            ours = await feed.server_makespan(our_url, ours_ids)
            gaps = await idle_gaps(our_url, ours_ids)
    return Run(ours / base, ours, base, sum(gaps), sum(1 for gap in gaps if gap > DRY_S))


def line(label: str, runs: Sequence[Run]) -> str:
    ratios = [run.ratio for run in runs]
    idle = statistics.median(run.idle for run in runs)
    dry = statistics.median(run.dry for run in runs)
    return (
        f"{label:<40} ratio median {statistics.median(ratios):.3f} "
        f"(range {min(ratios):.3f}-{max(ratios):.3f}; all at once "
        f"{statistics.median(r.base for r in runs):.2f} s)  idle between jobs "
        f"{idle * 1000:.0f} ms, dry spells {dry:g} (medians)"
    )


async def measure(options: argparse.Namespace, folder: Path) -> None:
    if options.server:
        feed.WORKFLOW = TURBO_WORKFLOW  # the jobs the batch and the baseline send
    print(
        f"turbo-class jobs: {options.jobs} a batch, {options.pairs} pairs a setting, "
        + (f"on {options.server}" if options.server else f"simulated {JOB_SECONDS * 1000:g} ms")
        + "; target for the defaults: ratio <= 1.03"
    )
    servers = [(options.server, ())] if options.server else SERVERS
    for server, extra in servers:
        print(f"{server}:")
        for label, config in SETTINGS:
            runs = [
                await one_pair(folder, options.server, options.jobs, config, *extra)
                for _ in range(options.pairs)
            ]
            print("  " + line(label, runs), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5, help="pairs of runs a setting (5)")
    parser.add_argument("--jobs", type=int, default=40, help="jobs a batch (40)")
    parser.add_argument("--server", help="a real ComfyUI with the tiny models")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(measure(options, Path(folder)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: does Batchline send every job where its model is, in the order that keeps models
loaded? The figures of BENCHMARKS.md's "Models" section in one table.

Each simulated ComfyUI is a `batchline simulate` process of its own with its model list
(``--models``) and the load a checkpoint switch costs (``--model-load``; by default one job's
time, as measured on the real ComfyUI with its tiny checkpoints). Figures:

- grid order: one server, a grid of 2 checkpoints × 2 cfg values × 10 seeds (40 jobs) fed by
  Batchline in the order the grid composes them; its makespan (the server's own: first
  execution start to last execution end) against the same prompts POSTed at once grouped by
  checkpoint, and the makespan of today's order (checkpoints alternating job after job, as the
  grid composed them before issue 28) POSTed at once and fed by Batchline.
- mixed models: two servers, one listing checkpoints A and B, one B and C; one batch over A, B
  and C fed by Batchline: the jobs failed for a missing model (target 0), the attempts a server
  refused, and the makespan (the later server's) against the best split POSTed at once (A and
  half of B on one server, C and the other half on the other, each grouped).

Run: `make bench`, or `.venv/bin/python -m bench.model_order [--quick] [--server URL
--checkpoints A,B]` (``--server``: the grid figures on a real ComfyUI, with two of its
checkpoints).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from bench.feed import Figure, print_table, server_makespan, simulators, through_batchline
from core.batch import BatchSpec, GridAxis, SeedPlan, build_workflow, compose
from core.batch.queueing import stored_preset
from core.comfy import ComfyClient, new_prompt_id
from core.controller import ControllerConfig
from core.job_state import AttemptResult, JobState
from core.ledger import Ledger, NewJob, PresetContent
from core.presets import workflow_hash

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from core.batch import JobSpec

A, B, C = "model-a.safetensors", "model-b.safetensors", "model-c.safetensors"
JOB_SECONDS = 0.3


def txt2img(steps: int, size: int) -> dict[str, Any]:
    """An SD1.5 text-to-image workflow: checkpoint, two prompts, sampler, decode, save."""
    return {
        "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": A}},
        "5": {"class_type": "EmptyLatentImage",
              "inputs": {"width": size, "height": size, "batch_size": 1}},
        "6": {"class_type": "CLIPTextEncode", "inputs": {"text": "a red fox", "clip": ["4", 1]}},
        "7": {"class_type": "CLIPTextEncode", "inputs": {"text": "blurry", "clip": ["4", 1]}},
        "3": {"class_type": "KSampler", "inputs": {
            "seed": 1, "steps": steps, "cfg": 7.0, "sampler_name": "euler",
            "scheduler": "normal", "denoise": 1.0, "model": ["4", 0], "positive": ["6", 0],
            "negative": ["7", 0], "latent_image": ["5", 0]}},
        "8": {"class_type": "VAEDecode", "inputs": {"samples": ["3", 0], "vae": ["4", 2]}},
        "9": {"class_type": "SaveImage", "inputs": {"images": ["8", 0], "filename_prefix": "mo"}},
    }  # fmt: skip


class Setup:
    """The workflow and checkpoints one run uses (a simulator's or a real server's)."""

    def __init__(self, server: str | None, checkpoints: Sequence[str], quick: bool) -> None:
        self.server = server
        self.workflow = txt2img(6, 128) if server else txt2img(20, 64)
        self.checkpoints = list(checkpoints)
        self.seeds = 2 if server else (5 if quick else 10)

    @contextlib.contextmanager
    def servers(self, folder: Path, *lists: Sequence[str]) -> Iterator[list[str]]:
        """One fresh server per model list (the real one, when given, for one list)."""
        if self.server is not None:  # as a fresh server: no model loaded, no node cached
            free = {"unload_models": True, "free_memory": True}
            httpx.post(f"{self.server}/free", json=free).raise_for_status()
            time.sleep(1.0)  # ComfyUI frees when idle, between two of its loops
            yield [self.server]
            return
        with contextlib.ExitStack() as stack:
            urls = []
            for files in lists:
                models = ("--models", "checkpoints=" + ",".join(files))
                urls += stack.enter_context(simulators(1, JOB_SECONDS, folder, *models))
            yield urls


def _ledger(folder: Path, workflow: Mapping[str, Any]) -> Ledger:
    ledger = Ledger(Path(tempfile.mkdtemp(dir=folder)))
    ledger.presets.add("txt2img", PresetContent(workflow_hash(dict(workflow)), dict(workflow)))
    return ledger


def grid_jobs(ledger: Ledger, checkpoints: Sequence[str], seeds: int) -> list[JobSpec]:
    """The grid's jobs as compose orders them: checkpoint × cfg × seeds."""
    start = int(time.time() * 1000) % 1_000_000_000  # a real server keeps its cache: new seeds
    grid = (GridAxis("3.cfg", (5, 8)), GridAxis("4.ckpt_name", tuple(checkpoints)))
    spec = BatchSpec(SeedPlan(count=seeds, start=start), grid=grid)
    return compose(stored_preset(ledger.presets.get("txt2img")), spec)


def todays_order(jobs: Sequence[JobSpec]) -> list[JobSpec]:
    """The order the grid composed them in before: seed rows outermost, then X, then Y (the
    checkpoint alternating job after job)."""
    return sorted(jobs, key=lambda job: (tuple(job.seeds.values()), job.grid))


def grouped(jobs: Sequence[JobSpec], key: str = "4.ckpt_name") -> list[JobSpec]:
    """The jobs grouped by checkpoint, each group in its order (a stable sort)."""
    first = {value: n for n, value in enumerate(dict.fromkeys(j.params[key] for j in jobs))}
    return sorted(jobs, key=lambda job: first[job.params[key]])


async def post_at_once(url: str, workflow: Mapping[str, Any], jobs: Sequence[JobSpec]) -> list[str]:
    """POST every job's prompt to ``url`` in this order and wait until the last one ran."""
    async with ComfyClient(url) as client:
        ids = [new_prompt_id() for _ in jobs]
        for job, pid in zip(jobs, ids, strict=True):
            await client.submit(build_workflow(dict(workflow), dict(job.params)), pid)
        while await client.history(ids[-1]) is None:  # noqa: ASYNC110 (polls a server)
            await asyncio.sleep(0.02)
    return ids


async def through(
    folder: Path, ledger: Ledger, urls: Sequence[str], jobs: Sequence[JobSpec]
) -> tuple[list[str], dict[str, list[str]]]:
    """Batchline feeds ``jobs`` (one batch, queued in this order) to ``urls``: the job ids and
    each server's succeeded prompt ids."""
    new = [NewJob(dict(job.params), "bench", 0) for job in jobs]
    _, ids = ledger.create_batch("txt2img", new, requester="bench")
    await through_batchline(ledger, urls, ControllerConfig(), Path(tempfile.mkdtemp(dir=folder)))
    by_server: dict[str, list[str]] = {url: [] for url in urls}
    for tries in ledger.attempts_of(ids).values():
        for attempt in tries:
            if attempt.result == AttemptResult.succeeded:
                by_server[attempt.server].append(attempt.prompt_id)
    return ids, by_server


async def makespan_of(prompts: Mapping[str, Sequence[str]]) -> float:
    """The makespan over several servers: the first start to the last end of them all."""
    spans = []
    for url, ids in prompts.items():
        if ids:
            async with ComfyClient(url) as client:
                entries = [await client.history(pid) for pid in ids]
            spans += [(e.started_at, e.finished_at) for e in entries if e is not None]
    starts = [s for s, _ in spans if s is not None]
    ends = [e for _, e in spans if e is not None]
    return max(ends) - min(starts)


# --- the figures --------------------------------------------------------------------------------


async def grid_figures(setup: Setup, folder: Path) -> list[Figure]:
    """One server, a 2-checkpoint grid: Batchline against grouped, and today's order."""
    ledger = _ledger(folder, setup.workflow)
    with ledger:
        span: dict[str, float] = {}
        switches: dict[str, str] = {}
        for name, arrange in (("grouped", grouped), ("today", todays_order)):
            order = arrange(grid_jobs(ledger, setup.checkpoints[:2], setup.seeds))
            with setup.servers(folder, setup.checkpoints[:2]) as (url,):
                ids = await post_at_once(url, setup.workflow, order)
                span[f"{name} at once"] = await server_makespan(url, ids)
        for name, arrange in (("composed", list), ("today", todays_order)):
            jobs = arrange(grid_jobs(ledger, setup.checkpoints[:2], setup.seeds))
            with setup.servers(folder, setup.checkpoints[:2]) as urls:
                job_ids, prompts = await through(folder, ledger, urls, jobs)
                _check_succeeded(ledger, job_ids)
                span[f"{name} through Batchline"] = await makespan_of(prompts)
                switches[name] = loads(urls, setup)
    base = span["grouped at once"]
    where = f"on {setup.server}" if setup.server else f"{JOB_SECONDS:g} s jobs, 1 job's load"
    what = f"{len(jobs)} jobs over 2 checkpoints, {where}"
    ours = span["composed through Batchline"] / base
    baseline = f"grouped at once {base:.2f} s"
    return [
        Figure(
            f"grid order: makespan ratio, {what}", ours, "x", "<= 1.05",
            f"{baseline}; loads {switches['composed']}", ours <= 1.05,
        ),
        Figure(
            "grid order: today's order (alternating) POSTed at once",
            span["today at once"] / base, "x", "reported", baseline, None,
        ),
        Figure(
            "grid order: today's order fed by Batchline (its model order)",
            span["today through Batchline"] / base, "x", "reported",
            f"{baseline}; loads {switches['today']}", None,
        ),
    ]  # fmt: skip


async def mixed_figures(setup: Setup, folder: Path) -> list[Figure]:
    """Two servers with different model lists, one batch over three checkpoints."""
    lists = ([A, B], [B, C])
    ledger = _ledger(folder, setup.workflow)
    with ledger:
        start = int(time.time() * 1000) % 1_000_000_000
        grid = (GridAxis("4.ckpt_name", (A, B, C)),)
        spec = BatchSpec(SeedPlan(count=2 * setup.seeds, start=start), grid=grid)
        jobs = compose(stored_preset(ledger.presets.get("txt2img")), spec)
        with setup.servers(folder, *lists) as urls:
            job_ids, prompts = await through(folder, ledger, urls, jobs)
            ours = await makespan_of(prompts)
            split = " + ".join(str(len(prompts[url])) for url in urls)
            switches = loads(urls, setup)
            failed = ledger.count_by_state().get(JobState.failed, 0)
            refused = sum(
                1
                for tries in ledger.attempts_of(job_ids).values()
                for attempt in tries
                if attempt.result != AttemptResult.succeeded
            )
        best = await _best_split(setup, folder, jobs, lists)
    what = f"{len(jobs)} jobs, checkpoints A+B on one server, B+C on the other"
    return [
        Figure(f"mixed models: jobs failed, {what}", failed, "jobs", "0", "", failed == 0),
        Figure("mixed models: attempts refused by a server", refused, "", "reported", "", None),
        Figure(
            "mixed models: makespan against the best split",
            ours / best, "x", "reported",
            f"best split at once {best:.2f} s; ours ran {split} jobs, loads {switches}", None,
        ),
    ]  # fmt: skip


async def _best_split(
    setup: Setup, folder: Path, jobs: Sequence[JobSpec], lists: Sequence[Sequence[str]]
) -> float:
    """The batch split by hand: each server its own checkpoint's jobs and half of the shared
    one's, grouped, POSTed at once to both at the same time."""
    shared = [j for j in jobs if j.params["4.ckpt_name"] == B]
    half = len(shared) // 2
    first = [j for j in jobs if j.params["4.ckpt_name"] == A] + shared[:half]
    second = shared[half:] + [j for j in jobs if j.params["4.ckpt_name"] == C]
    with setup.servers(folder, *lists) as urls:
        parts = (first, second)
        posted = await asyncio.gather(
            *(
                post_at_once(url, setup.workflow, part)
                for url, part in zip(urls, parts, strict=True)
            )
        )
        return await makespan_of(dict(zip(urls, posted, strict=True)))


def loads(urls: Sequence[str], setup: Setup) -> str:
    """How many checkpoint loads each simulated server made ("?" on a real one)."""
    if setup.server is not None:
        return "?"
    counts = [sum(httpx.get(f"{url}/_sim/stats").json()["model_loads"].values()) for url in urls]
    return " + ".join(str(count) for count in counts)


def _check_succeeded(ledger: Ledger, job_ids: Sequence[str]) -> None:
    states = [ledger.job(job_id).state for job_id in job_ids]
    if any(state != JobState.succeeded for state in states):
        raise SystemExit(f"only {states.count(JobState.succeeded)} of {len(states)} succeeded")


async def figures(options: argparse.Namespace, folder: Path) -> list[Figure]:
    checkpoints = options.checkpoints.split(",") if options.checkpoints else [A, B]
    setup = Setup(options.server, checkpoints, options.quick)
    found = await grid_figures(setup, folder)
    if options.server is None:  # two servers with different lists: simulated only
        found += await mixed_figures(setup, folder)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", help="a real ComfyUI for the grid figures")
    parser.add_argument("--checkpoints", help="two of its checkpoints, A,B (with --server)")
    parser.add_argument("--quick", action="store_true", help="fewer jobs (a rough look)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        found = asyncio.run(figures(options, Path(folder)))
    print_table(found)
    return 0


if __name__ == "__main__":
    sys.exit(main())

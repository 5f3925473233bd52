"""Benchmark: does Batchline keep a fast GPU fed? Every figure of BENCHMARKS.md in one table.

Each simulated ComfyUI is a `batchline simulate` process of its own (as a real server is), so
the controller measured here (in this process) shares no interpreter with it. Figures:

- makespan: the server's own makespan (first execution start to last execution end, from its
  history) of a batch fed by Batchline, against the same batch POSTed all at once (baseline);
  ``--server URL`` runs both against a real ComfyUI instead of the simulator.
- throughput: jobs a second through the controller when jobs take no time (synchronous=FULL),
  on one simulator and on four; baseline: all POSTed at once to one simulator.
- completion → ledger: from the server's execution_success to the job reading succeeded in the
  ledger, with the WebSocket and without it (the poll interval is the baseline).
- history: the controller's CPU per job with 100,000 finished jobs in the ledger against 1,000.
- memory: `batchline run --until-idle` over 20,000 jobs, its resident memory at 10 % done and
  at the end.

Run: `make bench`, or `.venv/bin/python bench/feed.py [--quick] [--only NAME] [--server URL]`.
Writes bench/results.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from core.batch import BatchSpec, SeedPlan, build_workflow, queue_batch
from core.comfy import ComfyClient, new_prompt_id
from core.controller import Controller, ControllerConfig
from core.job_state import JobState
from core.ledger import Ledger, PresetContent
from core.ledger.settings import OUTPUT_DIR
from core.presets import workflow_hash

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
WORKFLOW = {
    "1": {
        "class_type": "EmptyImage",
        "inputs": {"width": 64, "height": 64, "batch_size": 1, "color": 8421504},
    },
    "2": {"class_type": "ImageAddNoise", "inputs": {"image": ["1", 0], "seed": 1, "strength": 0.5}},
    "3": {"class_type": "SaveImage", "inputs": {"images": ["2", 0], "filename_prefix": "bench"}},
}


# `batchline run --deep-queue 8 --per-requester 8`: one requester may fill the deeper queue.
DEEP = ControllerConfig(deep_queue=True, max_queue_depth=8, per_requester_cap=8)


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    target: str
    baseline: str
    met: bool | None  # None: reported, no target


# --- simulated servers --------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def simulators(count: int, job_seconds: float, folder: Path, *extra: str) -> Iterator[list[str]]:
    """``count`` simulator processes; yields their URLs once each answers."""
    procs: list[subprocess.Popen[bytes]] = []
    urls = []
    try:
        for _ in range(count):
            port = _free_port()
            out = Path(tempfile.mkdtemp(prefix="sim-", dir=folder))
            command = [PYTHON, "-m", "cli.main", "simulate", "--port", str(port)]
            command += ["--job-seconds", str(job_seconds), "--cpu-time-scale", "0"]
            command += ["--output-dir", str(out), *extra]
            procs.append(subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL))
            urls.append(f"http://127.0.0.1:{port}")
        for url in urls:
            _wait_for(url)
        yield urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)


def _wait_for(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/system_stats", timeout=1.0).status_code == 200:
                return
        time.sleep(0.1)
    raise SystemExit(f"the simulator at {url} did not answer in {timeout:.0f} s")


# --- one batch ---------------------------------------------------------------------------------


def _ledger_with_batch(folder: Path, jobs: int) -> tuple[Ledger, list[str]]:
    ledger = Ledger(folder)
    if not ledger.presets.names():
        ledger.presets.add("bench", PresetContent(workflow_hash(WORKFLOW), WORKFLOW))
    start = int(time.time() * 1000) % 1_000_000_000  # a real server keeps its cache: new seeds
    _, ids = queue_batch(ledger, "bench", BatchSpec(seeds=SeedPlan(count=jobs, start=start)))
    return ledger, ids


async def through_batchline(
    ledger: Ledger, urls: Sequence[str], config: ControllerConfig, out: Path
) -> float:
    """Run the ledger's jobs on ``urls`` until none is active; returns when it started (the
    ledger's clock, for ``to_last_end``)."""
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(ComfyClient(url)) for url in urls]
        controller = Controller(ledger, clients, config=config, output_dir=out)
        start = time.time()
        await controller.run_until_idle()
        return start


def to_last_end(ledger: Ledger, job_ids: Sequence[str], start: float) -> float:
    """Seconds from ``start`` to the end of the last of ``job_ids`` (its last transition: not
    the up to 0.1 s ``run_until_idle`` takes to see it, nor the stop)."""
    return max(ledger.job(job_id).updated_at for job_id in job_ids) - start


async def all_at_once(url: str, jobs: int) -> tuple[list[str], float]:
    """POST ``jobs`` prompts at once straight to ``url`` and wait for the last one."""
    seed = int(time.time() * 1000) % 1_000_000_000
    async with ComfyClient(url) as client:
        ids = [new_prompt_id() for _ in range(jobs)]
        start = time.perf_counter()
        for n, pid in enumerate(ids):
            await client.submit(build_workflow(WORKFLOW, {"2.seed": seed + n}), pid)
        while await client.history(ids[-1]) is None:  # noqa: ASYNC110 (polls a server)
            await asyncio.sleep(0.005)
        return ids, time.perf_counter() - start


async def server_makespan(url: str, prompt_ids: Sequence[str]) -> float:
    """First execution start to last execution end, as the server's history says."""
    async with ComfyClient(url) as client:
        entries = [await client.history(pid) for pid in prompt_ids]
    starts = [e.started_at for e in entries if e is not None and e.started_at is not None]
    ends = [e.finished_at for e in entries if e is not None and e.finished_at is not None]
    if len(starts) != len(prompt_ids) or len(ends) != len(prompt_ids):
        raise SystemExit(f"{url}: history lacks execution times of some prompts")
    return max(ends) - min(starts)


def _succeeded_prompts(ledger: Ledger, job_ids: Sequence[str]) -> list[str]:
    attempts = ledger.attempts_of(job_ids)
    done = ledger.count_by_state().get(JobState.succeeded, 0)
    if done < len(job_ids):
        raise SystemExit(f"only {done} of {len(job_ids)} jobs succeeded")
    return [a.prompt_id for tries in attempts.values() for a in tries if a.result == "succeeded"]


# --- the figures --------------------------------------------------------------------------------


async def makespan(
    folder: Path, server: str | None, jobs: int, job_seconds: float, config: ControllerConfig
) -> tuple[float, float]:
    """(Batchline's makespan, all-at-once makespan) in seconds on the same kind of server."""
    with contextlib.ExitStack() as stack:
        if server is None:
            base_url = stack.enter_context(simulators(1, job_seconds, folder))[0]
            our_url = stack.enter_context(simulators(1, job_seconds, folder))[0]
        else:
            base_url = our_url = server
        base_ids, _ = await all_at_once(base_url, jobs)
        base = await server_makespan(base_url, base_ids)
        home = Path(tempfile.mkdtemp(dir=folder))
        ledger, job_ids = _ledger_with_batch(home, jobs)
        with ledger:
            await through_batchline(ledger, [our_url], config, home / "out")
            ours = await server_makespan(our_url, _succeeded_prompts(ledger, job_ids))
    return ours, base


async def throughput(
    folder: Path, servers: int, jobs: int, config: ControllerConfig
) -> tuple[float, float]:
    """(jobs/s through the controller on ``servers`` zero-time simulators, jobs/s all at once)."""
    with simulators(servers, 0.0, folder) as urls:
        home = Path(tempfile.mkdtemp(dir=folder))
        ledger, job_ids = _ledger_with_batch(home, jobs)
        with ledger:
            start = await through_batchline(ledger, urls, config, home / "out")
            _succeeded_prompts(ledger, job_ids)
            elapsed = to_last_end(ledger, job_ids, start)
        _, base = await all_at_once(urls[0], jobs)
    return jobs / elapsed, jobs / base


async def completion_latency(folder: Path, jobs: int, websocket: bool) -> list[float]:
    """Per job, seconds from the server's execution_success to succeeded in the ledger."""
    no_ws = () if websocket else ("--fault-route", "GET /ws", "--error-rate", "1")
    with simulators(1, 0.05, folder, *no_ws) as urls:
        home = Path(tempfile.mkdtemp(dir=folder))
        ledger, job_ids = _ledger_with_batch(home, jobs)
        with ledger:
            await through_batchline(ledger, urls, ControllerConfig(), home / "out")
            attempts = ledger.attempts_of(job_ids)
            transitions = ledger.transitions_of(job_ids)
            async with ComfyClient(urls[0]) as client:
                latencies = []
                for job_id in job_ids:
                    pid = attempts[job_id][-1].prompt_id
                    entry = await client.history(pid)
                    done = [t.at for t in transitions[job_id] if t.to_state == JobState.succeeded]
                    if entry is None or entry.finished_at is None or not done:
                        raise SystemExit(f"job {job_id} did not succeed")
                    latencies.append(done[0] - entry.finished_at)
    return latencies


def fill_history(ledger: Ledger, jobs: int) -> None:
    """``jobs`` finished jobs, with the rows the verbs would have written (an attempt, four
    transitions), written in bulk: a benchmark's setup, not a path of the app."""
    _, ids = queue_batch(ledger, "bench", BatchSpec(seeds=SeedPlan(count=jobs, start=1)))
    db = ledger.handle.database
    now = time.time()
    with ledger.handle.tx():
        db.execute_sql(
            "INSERT INTO attempt (job_id, n, prompt_id, server, result, workflow_hash, stalled,"
            " created_at, queued_at, started_at, finished_at, outputs_json)"
            " SELECT id, 1, lower(hex(randomblob(16))), 'http://127.0.0.1:1', 'succeeded',"
            " 'x', 0, ?, ?, ?, ?, '[\"/tmp/x.png\"]' FROM job WHERE state = 'pending'",
            (now, now, now, now),
        )
        for before, after in (("pending", "queued"), ("queued", "running")):
            db.execute_sql(
                "INSERT INTO transition (job_id, attempt, at, from_state, to_state, cause)"
                " SELECT id, 1, ?, ?, ?, 'bench' FROM job WHERE state = 'pending'",
                (now, before, after),
            )
        db.execute_sql(
            "INSERT INTO transition (job_id, attempt, at, from_state, to_state, cause)"
            " SELECT id, 1, ?, 'running', 'succeeded', 'finished' FROM job"
            " WHERE state = 'pending'",
            (now,),
        )
        db.execute_sql(
            "UPDATE job SET state = 'succeeded', started_at = ?, finished_at = ?"
            " WHERE state = 'pending'",
            (now, now),
        )
    assert ledger.count_by_state().get(JobState.succeeded, 0) >= len(ids)


async def cpu_per_job(folder: Path, history: int, jobs: int) -> float:
    """The controller's CPU seconds per job (this process: the simulator runs in its own)."""
    with simulators(1, 0.0, folder) as urls:
        home = Path(tempfile.mkdtemp(dir=folder))
        with Ledger(home) as ledger:
            ledger.presets.add("bench", PresetContent(workflow_hash(WORKFLOW), WORKFLOW))
            fill_history(ledger, history)
        ledger, job_ids = _ledger_with_batch(home, jobs)
        with ledger:
            start = time.process_time()
            await through_batchline(ledger, urls, ControllerConfig(), home / "out")
            spent = time.process_time() - start
            _succeeded_prompts(ledger, job_ids)
    return spent / jobs


def run_memory(folder: Path, jobs: int) -> tuple[float, float, float]:
    """``batchline run --until-idle`` over ``jobs`` zero-time jobs: its resident memory (MiB)
    at 10 % done and at the end, and its jobs a second."""
    home = folder / "memory"
    ledger, _ = _ledger_with_batch(home, jobs)
    OUTPUT_DIR.set(ledger, folder / "memory-out")
    ledger.close()
    with simulators(1, 0.0, folder) as urls:
        command = [PYTHON, "-m", "cli.main", "--data-dir", str(home), "--server", urls[0]]
        command += ["run", "--until-idle"]
        start = time.perf_counter()
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
        samples: list[tuple[int, float]] = []  # (jobs done, RSS MiB)
        with Ledger(home) as watcher:
            while proc.poll() is None:
                rss = _rss_mib(proc.pid)
                done = watcher.count_by_state().get(JobState.succeeded, 0)
                if rss is not None:
                    samples.append((done, rss))
                time.sleep(0.5)
        elapsed = time.perf_counter() - start
    if proc.returncode != 0 or not samples:
        raise SystemExit(f"batchline run exited with {proc.returncode}")
    early = next(rss for done, rss in samples if done >= jobs // 10)
    return early, max(rss for _, rss in samples[-3:]), jobs / elapsed


def _rss_mib(pid: int) -> float | None:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return None


# --- the table ----------------------------------------------------------------------------------


async def figures(options: argparse.Namespace, folder: Path) -> list[Figure]:
    quick, only, server = options.quick, options.only, options.server
    found: list[Figure] = []

    def wanted(name: str) -> bool:
        return only is None or only == name

    if wanted("makespan"):
        for label, jobs, seconds, config, limit in (
            ("default caps", 20, 0.3, ControllerConfig(), 1.02),
            ("deep queue 8, per requester 8", 200, 0.005, DEEP, 1.10),
            ("default caps", 200, 0.005, ControllerConfig(), None),
        ):
            jobs = jobs // 2 if quick else jobs
            ours, base = await makespan(folder, server, jobs, seconds, config)
            # A real server's jobs take what they take there.
            what = f"{jobs} jobs on {server}" if server else f"{seconds * 1000:g} ms jobs"
            ratio = ours / base
            found.append(
                Figure(
                    f"makespan ratio, {what}, {label}",
                    ratio,
                    "x",
                    f"<= {limit:.2f}" if limit else "reported",
                    f"all at once {base:.3f} s, ours {ours:.3f} s",
                    ratio <= limit if limit else None,
                )
            )
    if wanted("throughput"):
        deep = ", deep queue 8, per requester 8"
        for servers, label, config, target in (
            (1, "", ControllerConfig(), 300),
            (4, "", ControllerConfig(), 300),
            (1, deep, DEEP, None),
            (4, deep, DEEP, None),
        ):
            jobs = (300 if quick else 1000) * (2 if servers > 1 else 1)
            rate, base = await throughput(folder, servers, jobs, config)
            found.append(
                Figure(
                    f"throughput, zero-time jobs, {servers} server(s), {jobs} jobs{label}",
                    rate,
                    "jobs/s",
                    f">= {target}" if target else "reported",
                    f"all at once to one server {base:.0f} jobs/s",
                    rate >= target if target else None,
                )
            )
    if wanted("latency"):
        poll = ControllerConfig().poll_active_s
        for websocket in (True, False):
            late = await completion_latency(folder, 30 if quick else 100, websocket)
            median, p99 = statistics.median(late), _percentile(late, 0.99)
            how = "WebSocket" if websocket else "no WebSocket"
            median_target, p99_target = (0.020, 0.100) if websocket else (poll, poll)
            for stat, value, limit in (("median", median, median_target), ("p99", p99, p99_target)):
                found.append(
                    Figure(
                        f"completion -> ledger, {how}, {stat}",
                        value * 1000,
                        "ms",
                        f"<= {limit * 1000:.0f}",
                        f"poll interval {poll * 1000:.0f} ms",
                        value <= limit,
                    )
                )
    if wanted("history"):
        jobs = 100 if quick else 300
        small = await cpu_per_job(folder, 1_000, jobs)
        large = await cpu_per_job(folder, 100_000, jobs)
        found.append(
            Figure(
                "controller CPU a job, 100,000 finished jobs in the ledger",
                large * 1000,
                "ms",
                f"<= {1.2 * small * 1000:.2f} (1.2x)",
                f"with 1,000: {small * 1000:.2f} ms",
                large <= 1.2 * small,
            )
        )
    if wanted("memory"):
        jobs = options.memory_jobs or (2_000 if quick else 20_000)
        early, end, rate = run_memory(folder, jobs)
        found.append(
            Figure(
                f"batchline run RSS after {jobs:,} jobs",
                end,
                "MiB",
                f"<= {early * 1.1:.0f} (flat: 1.1x)",
                f"at 10 % done {early:.0f} MiB; {rate:.0f} jobs/s",
                end <= early * 1.1,
            )
        )
    return found


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def machine() -> dict[str, Any]:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown",
    )
    return {"cpus": os.cpu_count(), "cpu": model, "python": platform.python_version()}


def print_table(found: Sequence[Figure]) -> None:
    rows = [("figure", "value", "target", "same-run baseline", "")]
    for f in found:
        mark = "" if f.met is None else ("ok" if f.met else "MISSED")
        value = f"{f.value:.3f} {f.unit}" if f.unit == "x" else f"{f.value:.1f} {f.unit}"
        rows.append((f.name, value, f.target, f.baseline, mark))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", help="a real ComfyUI for the makespan figures")
    parser.add_argument("--quick", action="store_true", help="fewer jobs (a rough look)")
    parser.add_argument(
        "--only", choices=["makespan", "throughput", "latency", "history", "memory"]
    )
    parser.add_argument("--memory-jobs", type=int, help="jobs of the memory run (20,000)")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results.json")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        found = asyncio.run(figures(options, Path(folder)))
    print_table(found)
    result = {
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(),
        "figures": [asdict(f) for f in found],
    }
    options.output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {options.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

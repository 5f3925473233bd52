"""The API cannot starve the controller it shares `batchline serve`'s event loop with: slow
connections past the cap, event streams from the start of a 40,000-job ledger past their caps,
and the controller keeps feeding ComfyUI (the simulator) meanwhile; memory and the log stay
bounded. The hostile clients run in a process of their own (slow_clients.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.api import ApiConfig, serve_api
from core.api import app as app_module
from core.api.connections import ConnectionCaps
from core.batch import BatchSpec, SeedPlan, queue_batch
from core.comfy import ComfyClient
from core.controller import Controller
from core.job_state import JobState
from core.ledger import Ledger
from tests.core.conftest import MakeSimulator
from tests.core.helpers import FAST, wait_for

pytestmark = pytest.mark.asyncio

HISTORY = 40_000  # finished jobs in the ledger, none of them a token's
JOBS = 40  # carol's, run while the clients press: 4 s of jobs or more, 4 header timeouts
JOB_S = 0.1
SLOW = 200  # connections sending their headers a byte at a time (the cap: 48)
CAPS = ConnectionCaps(connections=48, streams=12, streams_per_token=6)
SLOW_CLIENTS = Path(__file__).with_name("slow_clients.py")


def fill_history(ledger: Ledger, jobs: int) -> None:
    """``jobs`` finished jobs of the artist (an attempt and a transition each), written in bulk
    as bench/feed.py does: the change feed from 0 runs through all of them."""
    _, (first,) = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=1)))
    batch = ledger.job(first).batch
    now = time.time()
    db = ledger.handle.database
    with ledger.handle.tx():
        db.execute_sql(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            " INSERT INTO job (id, batch_id, requester, params_json, priority, state, attempt,"
            " auto_attempts, created_at, updated_at, seq)"
            " SELECT printf('job_old_%06d', i), ?, 'artist', '{}', 0, 'succeeded', 1, 1, ?, ?,"
            " 1000 + i FROM n",
            (jobs, batch, now, now),
        )
        db.execute_sql(
            "INSERT INTO attempt (job_id, n, prompt_id, server, result, workflow_hash, stalled,"
            " created_at, finished_at, outputs_json) SELECT id, 1, 'old-' || id, 'x',"
            " 'succeeded', 'x', 0, ?, ?, '[]' FROM job WHERE id LIKE 'job_old_%'",
            (now, now),
        )
        db.execute_sql(
            "INSERT INTO transition (job_id, attempt, at, from_state, to_state, cause)"
            " SELECT id, 1, ?, 'running', 'succeeded', 'finished' FROM job"
            " WHERE id LIKE 'job_old_%'",
            (now,),
        )
        db.execute_sql("UPDATE counter SET value = value + ? WHERE key = 'seq'", (jobs + 1000,))
    ledger.request_cancel(first)


class LagProbe:
    """A timer every ``every`` s on the loop: how late each tick ran (the loop's lag)."""

    def __init__(self, every: float = 0.05) -> None:
        self.every, self.lags = every, list[float]()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.every
            await asyncio.sleep(self.every)
            self.lags.append(loop.time() - due)


def rss_mib() -> float:
    """This process's resident memory (Linux; 0 elsewhere)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def _tallies(process: asyncio.subprocess.Process) -> Any:
    assert process.stdout is not None
    while line := await process.stdout.readline():
        yield Counter(json.loads(line))


@pytest.mark.expect_log("batchline.api.http", "WARNING")  # the refusals, once a minute
async def test_slow_connections_and_streams_from_zero_leave_the_controller_feeding_comfyui(
    ledger: Ledger,
    make_simulator: MakeSimulator,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(app_module, "HEADER_TIMEOUT_S", 1.0)
    caplog.set_level(logging.WARNING)
    fill_history(ledger, HISTORY)
    tokens = {name: ledger.tokens.create(name) for name in ("carol", "mallory", "eve")}
    simulator = await make_simulator(job_seconds=JOB_S)
    client = ComfyClient(simulator.url)
    controller = Controller(ledger, [client], config=FAST, output_dir=tmp_path / "out")
    probe = LagProbe()
    memory_before = rss_mib()
    await controller.start()
    probing = asyncio.create_task(probe.run())
    try:
        async with (
            serve_api(ledger, ApiConfig("127.0.0.1", 0, caps=CAPS)) as url,
            httpx.AsyncClient(base_url=url, timeout=60) as http,
        ):
            headers = {"Authorization": f"Bearer {tokens['carol']}"}
            async with http.stream("GET", "/v1/events?since=0", headers=headers) as carols:
                seen = asyncio.create_task(_succeeded(carols.aiter_lines()))
                await _press(url, tokens, ledger, probe)
                finished = await asyncio.wait_for(seen, 60)
    finally:
        probing.cancel()
        await controller.stop()
        await client.aclose()

    counts = ledger.count_by_state(requester="carol")
    assert counts == {JobState.succeeded: JOBS}
    assert len(finished) == JOBS  # carol's stream (from 0, the cap full) saw each finish
    lines = [r for r in caplog.records if r.name in ("batchline.api.http", "asyncio")]
    assert len(lines) <= 2, [r.getMessage() for r in lines]  # the refusals: once a minute
    assert not any(r.exc_info for r in lines)
    assert rss_mib() - memory_before < 200
    lags = sorted(probe.lags)
    print(f"loop lag: median {lags[len(lags) // 2] * 1000:.0f} ms, max {lags[-1] * 1000:.0f} ms")


async def _succeeded(lines: Any) -> set[str]:
    """The jobs carol's stream says succeeded, once it has said so of all ``JOBS``."""
    done: set[str] = set()
    async for line in lines:
        if line.startswith("data: "):
            job = json.loads(line[6:])
            if job["state"] == "succeeded":
                done.add(job["id"])
                if len(done) == JOBS:
                    return done
    raise AssertionError("the stream ended")


async def _press(url: str, tokens: dict[str, str], ledger: Ledger, probe: LagProbe) -> None:
    """Open the hostile clients; once they are refused and dropped, queue carol's jobs, wait
    for all of them to finish, and check the clients pressed until the last one did."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    streams = [f"{tokens['mallory']}:8", f"{tokens['eve']}:8"]
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SLOW_CLIENTS),
        host,
        port,
        str(SLOW),
        *streams,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    tallies = _tallies(process)
    try:
        pressing = await _next_where(tallies, lambda t: t["refused"] > 0 and t["dropped"] > 0)
        ticks = len(probe.lags)
        spec = BatchSpec(seeds=SeedPlan(count=JOBS, start=1), requester="carol")
        queue_batch(ledger, "noise", spec)

        def all_done() -> bool:
            return ledger.count_by_state(requester="carol").get(JobState.succeeded) == JOBS

        await wait_for(all_done, within=120)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        last = [tally async for tally in tallies][-1]
        await process.wait()
    # Carol's stream holds one of the 12; mallory and eve get 11 between them, each at most 6.
    assert (pressing["streams_open"], pressing["streams_refused"]) == (11, 5)
    assert pressing["streams_other"] == 0
    # While carol's jobs ran (4 header timeouts or more), the slow clients were still refused
    # (past the cap) and dropped (their headers never complete); none was served.
    assert last["refused"] > pressing["refused"]
    assert last["dropped"] > pressing["dropped"]
    assert last["answered"] == 0
    assert len(probe.lags) > ticks


async def _next_where(tallies: Any, check: Any) -> Counter[str]:
    async with asyncio.timeout(60):
        async for tally in tallies:
            if check(tally):
                return tally
    raise AssertionError("the clients stopped")

"""The waiting line now, read from the ledger and the controller's published status."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from core.controller.line_now import (
    RECENT_ATTEMPTS,
    LineCache,
    NewJobs,
    line_now,
    typical_run_seconds,
)
from core.controller.published import status_to_json
from core.controller.status import ControllerStatus, Progress, ServerStatus
from core.job_state import Reason
from core.ledger import Ledger, NewJob, PresetContent
from tests.core.helpers import succeed as record_success
from tests.core.ledger.conftest import WORKFLOW, make_jobs

ONE, TWO = "http://127.0.0.1:8188", "http://127.0.0.1:8189"


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path / "home") as opened:
        opened.presets.add("demo", PresetContent("hash-demo", WORKFLOW))
        yield opened


def run(ledger: Ledger, job_id: str, seconds: float, *, succeed: bool = True) -> None:
    """Send ``job_id`` and let it run ``seconds`` (as the server reports), then finish it."""
    pid = f"p-{job_id}"
    ledger.submit_attempt(job_id, pid, "http://x", "wf")
    ledger.observe_queued(pid, 1)
    ledger.observe_running(pid)
    if succeed:
        assert record_success(ledger, pid, [], "", (1000.0, 1000.0 + seconds))
    else:
        assert ledger.observe_failed(pid, Reason.oom, times=(1000.0, 1000.0 + seconds))


def figures(ledger: Ledger, **kwargs: object) -> list[tuple[int, float | None]]:
    line = line_now(ledger, **kwargs)  # type: ignore[arg-type]
    return [(place.place, place.estimate_s) for place in line.new]


def test_an_empty_ledger_has_no_wait_to_tell(ledger: Ledger) -> None:
    assert figures(ledger, new=NewJobs("alice", 3)) == [(1, None), (2, None), (3, None)]
    assert typical_run_seconds(ledger) is None


def test_jobs_not_finished_are_ahead_and_succeeded_attempts_time_the_wait(
    ledger: Ledger,
) -> None:
    ids = make_jobs(ledger, 6)
    for job_id, seconds in zip(ids[:3], (10.0, 30.0, 20.0), strict=True):
        run(ledger, job_id, seconds)
    run(ledger, ids[3], 500.0, succeed=False)  # a failure does not time a job
    ledger.submit_attempt(ids[4], "p-sent", "http://x", "wf")  # sent, still in line
    assert typical_run_seconds(ledger) == 20.0
    line = line_now(ledger, new=NewJobs("alice", 4))
    assert (line.places[ids[5]].place, line.new[-1].place, line.new[-1].estimate_s) == (2, 6, 120.0)
    assert figures(ledger, new=NewJobs("alice", 4), servers=2)[-1] == (6, 60.0)


def test_only_the_recent_succeeded_attempts_count(ledger: Ledger) -> None:
    ids = make_jobs(ledger, RECENT_ATTEMPTS + 5)
    for index, job_id in enumerate(ids):
        run(ledger, job_id, 1000.0 if index < 5 else 4.0)
    runs = ledger.recent_run_seconds(RECENT_ATTEMPTS)
    assert runs == [4.0] * RECENT_ATTEMPTS, "the 5 oldest, slow ones are left out"
    assert typical_run_seconds(ledger) == 4.0


def test_a_new_job_stands_behind_its_requesters_jobs_of_its_priority_and_takes_turns(
    ledger: Ledger,
) -> None:
    low = make_jobs(ledger, 4, "alice")
    bob = make_jobs(ledger, 2, "bob")
    urgent = ledger.create_batch("demo", [NewJob({"1.color": 9}, "", 5)], requester="alice")[1]
    line = line_now(ledger, new=NewJobs("alice", 1, priority=5))
    places = {**line.places, "new": line.new[0]}
    order = sorted(places, key=lambda job: places[job].place)
    # Turns: alice, bob, alice, ...; alice's urgent jobs first in her line, the new one after.
    assert order == [urgent[0], bob[0], "new", bob[1], *low]
    assert [places[job].at_once for job in order] == [True] * 3 + [False] * 5, "3 at a time"
    assert line.capacity == 3


def test_the_published_status_gives_the_servers_and_their_queues(ledger: Ledger) -> None:
    ids = make_jobs(ledger, 3)
    run(ledger, ids[0], 12.0)
    ledger.submit_attempt(ids[1], "p-one", ONE, "wf")  # ours on the first server
    servers = (ServerStatus(ONE, queue=3), ServerStatus(TWO, queue=1))  # 3 others' prompts
    status = ControllerStatus(servers=servers, global_cap=3, per_requester_cap=3)
    ledger.controller_runs.begin("run", os.getpid(), "terminal", status_to_json(status))
    line = line_now(ledger, wanted=[ids[2]], new=NewJobs("bob", 1))
    assert (line.servers, line.capacity) == (2, 6)
    # 4 prompts in ComfyUI's queues; server 1 has room: alice's pending job, then bob's.
    assert (line.places[ids[2]].place, line.places[ids[2]].server) == (5, 1)
    assert (line.new[0].place, line.new[0].server, line.new[0].estimate_s) == (6, 1, 36.0)


def test_a_window_s_cache_reads_again_only_when_the_feed_or_the_queues_move(
    ledger: Ledger,
) -> None:
    ids = make_jobs(ledger, 2)
    cache = LineCache(ledger)
    status = ControllerStatus(servers=(ServerStatus(ONE, queue=1),))
    first = cache.read(wanted=ids, status=status)
    stepped = replace(status, progress={"job": Progress(3, 20)}, done_per_minute=2.0)
    assert cache.read(wanted=ids, status=stepped) is first, "a sampler step moves no place"
    moved = cache.read(wanted=ids, status=replace(status, servers=(ServerStatus(ONE, queue=2),)))
    assert [moved.places[j].place for j in ids] == [3, 4]
    ledger.request_cancel(ids[0])
    assert list(cache.read(wanted=ids, status=status).places) == [ids[1]]


def test_a_job_asked_about_that_is_not_waiting_has_no_place(ledger: Ledger) -> None:
    ids = make_jobs(ledger, 3)
    ledger.submit_attempt(ids[0], "p-sending", ONE, "wf")  # being sent: in ComfyUI's queue next
    line = line_now(ledger, wanted=[ids[0], ids[1]])
    assert {job: place.place for job, place in line.places.items()} == {ids[1]: 2}

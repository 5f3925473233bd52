"""Acceptance experiments on the simulator: five jobs with cancels and a retry, restarts, lost
answers."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from core.simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.controller.test_controller import all_done, states
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio
MakeSimulator = Callable[..., object]


def executions(simulator: Simulator, ledger: Ledger, job_id: str) -> int:
    return sum(simulator.execution_count(a.prompt_id) for a in ledger.attempts(job_id))


async def test_five_jobs_with_a_cancel_while_queued_one_while_running_and_a_retry(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.5)  # type: ignore[misc]
    ids = queue(ledger, 5)
    controller = await make_controller(ledger, simulator, global_cap=10)
    await wait_for(lambda: ledger.job(ids[2]).state == JobState.queued)
    controller.cancel([ids[2]])  # job 3 while it waits in ComfyUI's queue
    await wait_for(lambda: ledger.job(ids[3]).state == JobState.running, 20)
    controller.cancel([ids[3]])  # job 4 while it runs
    await wait_for(lambda: ledger.job(ids[2]).state == JobState.cancelled)
    controller.retry([ids[2]])
    await wait_for(all_done(ledger, ids), 30)

    assert states(ledger, ids) == [
        JobState.succeeded,
        JobState.succeeded,
        JobState.succeeded,
        JobState.cancelled,
        JobState.succeeded,
    ]
    first, second = ledger.attempts(ids[2])
    assert simulator.execution_count(first.prompt_id) == 0, "job 3's first prompt never ran"
    assert first.result == AttemptResult.cancelled
    assert second.result == AttemptResult.succeeded
    assert second.prompt_id != first.prompt_id
    (fourth,) = ledger.attempts(ids[3])
    assert (fourth.result, fourth.reason) == (AttemptResult.cancelled, Reason.cancelled)
    assert simulator.execution_count(fourth.prompt_id) == 1, "job 4 was interrupted while running"
    windows = sorted(
        (a.started_at, a.finished_at, a.job_id)
        for job_id in ids
        for a in ledger.attempts(job_id)
        if a.started_at is not None
    )
    for (_, end, _), (start, _, _) in itertools.pairwise(windows):
        assert end is not None
        assert end <= start, "running windows never overlap"
    order = [job for _, _, job in windows]
    assert order.index(ids[4]) == order.index(ids[3]) + 1, "job 5 runs right after job 4"


async def test_server_restart_mid_batch_loses_nothing_and_runs_nothing_twice(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.3)  # type: ignore[misc]
    ids = queue(ledger, 6)
    await make_controller(ledger, simulator)
    await wait_for(lambda: states(ledger, ids).count(JobState.succeeded) >= 2, 20)
    await simulator.restart()
    await wait_for(all_done(ledger, ids), 40)
    assert states(ledger, ids) == [JobState.succeeded] * 6
    lost = [a for job_id in ids for a in ledger.attempts(job_id) if a.result == AttemptResult.lost]
    assert lost, "the restart lost at least the running prompt"
    assert all(a.reason == Reason.server_lost for a in lost)
    for job_id in ids:
        results = [a.result for a in ledger.attempts(job_id)]
        assert results.count(AttemptResult.succeeded) == 1
        for attempt in ledger.attempts(job_id):
            assert simulator.execution_count(attempt.prompt_id) <= 1


async def test_lost_submit_answers_never_cause_duplicate_runs(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(  # type: ignore[misc]
        faults={"drop_after_queue_rate": 0.5, "routes": ["POST /prompt"]}, seed=7
    )
    ids = queue(ledger, 6)
    await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, ids), 40)
    assert states(ledger, ids) == [JobState.succeeded] * 6
    for job_id in ids:
        assert executions(simulator, ledger, job_id) == 1


async def test_small_requester_is_not_starved(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.1)  # type: ignore[misc]
    big = queue(ledger, 20, requester="alice")
    small = queue(ledger, 2, requester="bob", start=100)
    await make_controller(ledger, simulator, global_cap=3, per_requester_cap=3)
    await wait_for(all_done(ledger, small), 30)
    finished_big = states(ledger, big).count(JobState.succeeded)
    assert finished_big <= 6, f"bob waited behind {finished_big} of alice's jobs"
    await wait_for(all_done(ledger, big), 40)


@pytest.mark.expect_log("core.controller.controller")
async def test_a_flaky_queue_route_is_ridden_out(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """Half the polls answer 500: the controller backs off and carries on; nothing runs twice."""
    simulator: Simulator = await make_simulator(  # type: ignore[misc]
        faults={"error_rate": 0.5, "routes": ["GET /queue"]}, seed=3
    )
    ids = queue(ledger, 4)
    await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, ids), 40)
    assert states(ledger, ids) == [JobState.succeeded] * 4
    for job_id in ids:
        assert executions(simulator, ledger, job_id) == 1


async def test_submissions_refused_with_500_fail_after_three_attempts(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """server_error is retried automatically with a new prompt_id each time, at most 3 attempts."""
    simulator: Simulator = await make_simulator(  # type: ignore[misc]
        faults={"error_rate": 1.0, "routes": ["POST /prompt"]}
    )
    (job_id,) = queue(ledger, 1)
    await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, [job_id]), 20)
    job = ledger.job(job_id)
    assert (job.state, job.reason, job.attempt) == (JobState.failed, Reason.server_error, 3)
    attempts = ledger.attempts(job_id)
    assert [a.reason for a in attempts] == [Reason.server_error] * 3
    assert len({a.prompt_id for a in attempts}) == 3
    assert executions(simulator, ledger, job_id) == 0

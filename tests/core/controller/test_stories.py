"""An end-to-end story across the controller's modules (admission, dispatch, reconcile, the
server link): five jobs on the simulator with a cancel while queued, one while running and a
retry. Tests of one module's logic are in that module's test file."""

from __future__ import annotations

import itertools

import pytest

from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.controller.test_controller import all_done, states
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio


async def test_five_jobs_with_a_cancel_while_queued_one_while_running_and_a_retry(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    # 1 s jobs: a cancel of the running job reaches it before it ends, even on a loaded machine.
    simulator: Simulator = await make_simulator(job_seconds=1.0)  # type: ignore[misc]
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

"""Other clients of the same ComfyUI, newer servers, stalls and bulk cancels."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from core.simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.controller.test_controller import all_done, states
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio
MakeSimulator = Callable[..., object]


def _prompt_of(ledger: Ledger, job_id: str) -> str:
    return ledger.attempts(job_id)[-1].prompt_id


async def test_a_prompt_deleted_by_another_client_is_removed_elsewhere(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.5)  # type: ignore[misc]
    ids = queue(ledger, 3)
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(ids[2]).state == JobState.queued)
    async with httpx.AsyncClient(base_url=simulator.url) as other:  # the artist's ComfyUI tab
        await other.post("/queue", json={"delete": [_prompt_of(ledger, ids[2])]})
    await wait_for(all_done(ledger, ids), 20)
    job = ledger.job(ids[2])
    assert (job.state, job.reason, job.attempt) == (JobState.cancelled, Reason.removed_elsewhere, 1)
    assert states(ledger, ids[:2]) == [JobState.succeeded] * 2


async def test_a_prompt_interrupted_by_another_client_is_interrupted_elsewhere(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=1.0)  # type: ignore[misc]
    (job_id,) = queue(ledger, 1)
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state == JobState.running)
    async with httpx.AsyncClient(base_url=simulator.url) as other:
        await other.post("/interrupt")  # a global interrupt from the ComfyUI frontend
    await wait_for(all_done(ledger, [job_id]))
    job = ledger.job(job_id)
    assert (job.state, job.reason) == (JobState.cancelled, Reason.interrupted_elsewhere)


async def test_cancel_on_a_server_with_the_jobs_api(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(  # type: ignore[misc]
        version="0.38.1", job_seconds=0.6
    )
    ids = queue(ledger, 3)
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(ids[0]).state == JobState.running)
    await wait_for(lambda: ledger.job(ids[2]).state == JobState.queued)
    controller.cancel([ids[0], ids[2]])
    await wait_for(all_done(ledger, ids), 20)
    assert states(ledger, ids) == [JobState.cancelled, JobState.succeeded, JobState.cancelled]
    assert simulator.execution_count(_prompt_of(ledger, ids[2])) == 0
    assert ledger.attempts(ids[0])[0].result == AttemptResult.cancelled


async def test_cancel_all_but_running_keeps_the_running_job(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.5)  # type: ignore[misc]
    ids = queue(ledger, 6)
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(ids[0]).state == JobState.running)
    outcome = controller.cancel_all_but_running()
    assert ids[0] not in outcome
    await wait_for(all_done(ledger, ids), 20)
    assert states(ledger, ids) == [JobState.succeeded] + [JobState.cancelled] * 5
    for job_id in ids[1:]:
        for attempt in ledger.attempts(job_id):
            assert simulator.execution_count(attempt.prompt_id) == 0


async def test_a_hung_prompt_is_flagged_stalled_never_failed(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator()  # type: ignore[misc]
    simulator.hang_next(1)
    (job_id,) = queue(ledger, 1)
    controller = await make_controller(ledger, simulator, stall_s=0.3)
    await wait_for(lambda: bool(ledger.attempts(job_id)) and ledger.attempts(job_id)[0].stalled)
    assert ledger.job(job_id).state == JobState.running
    await wait_for(lambda: controller.status.stalled == {job_id})  # shown in the job table
    controller.cancel([job_id])  # the artist gives up on it: a targeted interrupt...
    await wait_for(lambda: ledger.job(job_id).state == JobState.cancelling)
    await simulator.restart()  # ...which a hung worker never honours, until ComfyUI restarts
    await wait_for(all_done(ledger, [job_id]))
    job = ledger.job(job_id)
    assert (job.state, job.reason, job.attempt) == (JobState.cancelled, Reason.cancelled, 1)

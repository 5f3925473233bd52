"""The controller against the simulator: jobs run, fail, cancel and retry as the transition table
and the retry rules say; its commands (from the window, a worker thread, another process) obey
the backpressure limits and wake its loop."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.controller import Controller
from core.errors import QueueBusy
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger, PresetContent
from core.ledger.attempt_error import ErrorKind
from core.ledger.settings import MAX_PENDING_PER_REQUESTER, PAUSED
from core.presets import workflow_hash
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import FAST, NOISE_WORKFLOW, wait_for

pytestmark = pytest.mark.asyncio


def states(ledger: Ledger, ids: list[str]) -> list[JobState]:
    return [ledger.job(job_id).state for job_id in ids]


def all_done(ledger: Ledger, ids: list[str]) -> Callable[[], bool]:
    return lambda: all(state.is_terminal for state in states(ledger, ids))


async def test_a_job_that_ran_out_of_memory_is_retried_smaller_in_its_batch(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    workflow = copy.deepcopy(NOISE_WORKFLOW)
    workflow["1"]["inputs"].update(width=256, height=128)
    ledger.presets.add("big", PresetContent(workflow_hash(workflow), workflow))
    simulator = await make_simulator(faults={"fail_oom": 1})
    _batch, (job_id,) = queue_batch(ledger, "big", BatchSpec(seeds=SeedPlan(count=1)))
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state is JobState.failed)
    assert ledger.job(job_id).reason == Reason.oom
    smaller = controller.retry_smaller(job_id)
    await wait_for(lambda: ledger.job(smaller).state is JobState.succeeded)
    job = ledger.job(smaller)
    assert job.batch == ledger.job(job_id).batch
    assert (job.params["1.width"], job.params["1.height"]) == (192, 96)


async def test_a_command_on_a_worker_thread_changes_the_jobs_and_wakes_the_loop(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    controller = await make_controller(ledger, simulator)
    controller.pause()
    batch, ids = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=3)))
    outcome = await controller.in_worker(lambda: controller.cancel_batch(batch.id))
    assert outcome == dict.fromkeys(ids, "cancelled")
    assert states(ledger, ids) == [JobState.cancelled] * 3
    retried = await controller.in_worker(lambda: controller.retry(ids[:1]))
    assert retried == {ids[0]: 2}  # pending again: the number of its next attempt
    controller.resume()
    await wait_for(lambda: ledger.job(ids[0]).state is JobState.succeeded)


# Well below a poll interval of 60 s, well above what a busy machine takes to act on a wake-up.
BEFORE_THE_POLL_S = 20.0


HANG_S = 20.0  # bounds a wait that, broken, would never end: not a measure of speed


async def test_a_batch_runs_to_success_with_outputs(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController, tmp_path: Path
) -> None:
    ids = queue(ledger, 4)
    await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, ids))
    assert states(ledger, ids) == [JobState.succeeded] * 4
    for job_id in ids:
        (attempt,) = ledger.attempts(job_id)
        assert attempt.result == AttemptResult.succeeded
        assert simulator.execution_count(attempt.prompt_id) == 1
        (output,) = attempt.outputs
        path = Path(output)
        assert path.is_file()
        assert path.is_relative_to(tmp_path / "out")
        assert path.name == f"{job_id}_1.png"


async def test_out_of_memory_fails_once_without_retry(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    simulator.fail_next(1, "oom")
    (job_id,) = queue(ledger, 1)
    await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, [job_id]))
    job = ledger.job(job_id)
    assert (job.state, job.reason, job.attempt) == (JobState.failed, Reason.oom, 1)
    error = ledger.attempts(job_id)[0].error
    assert error is not None
    assert (error.kind, error.node_type) == (ErrorKind.oom, "EmptyImage")
    assert error.exception_type == "torch.OutOfMemoryError"


@pytest.mark.expect_log("core.controller.controller")  # when the HTTP refusal comes first
async def test_a_refused_token_stops_the_controller_with_the_reason(
    ledger: Ledger, make_simulator: Callable[..., object], tmp_path: Path
) -> None:
    from core.comfy import ComfyClient
    from core.errors import ComfyAuthError

    simulator: Simulator = await make_simulator(token="secret")  # type: ignore[misc]
    (job_id,) = queue(ledger, 1)
    async with ComfyClient(simulator.url) as client:
        controller = Controller(ledger, client, config=FAST, output_dir=tmp_path / "out")
        with pytest.raises(ComfyAuthError):
            await asyncio.wait_for(controller.run_until_idle(), 20)
    assert "credentials refused" in controller.status.stopped
    assert ledger.job(job_id).state == JobState.pending, "nothing was sent"
    assert not ledger.lease.held


async def test_changes_from_other_processes_are_acted_on_from_the_change_feed(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    """Pause, cancel, resume and retry written by another handle on the ledger (as the CLI does)
    reach a controller that would poll ComfyUI only every minute: each is acted on well before
    its next poll, so the change feed woke it."""
    ids = queue(ledger, 2)
    with Ledger(ledger.folder) as other:
        PAUSED.set(other, True)
        await make_controller(ledger, simulator, poll_active_s=60.0, poll_idle_s=60.0)
        assert other.request_cancel_many([ids[1]]) == {ids[1]: JobState.cancelled}
        await asyncio.sleep(0.3)
        assert states(ledger, ids) == [JobState.pending, JobState.cancelled], "still paused"
        PAUSED.set(other, False)
        await wait_for(lambda: ledger.job(ids[0]).state != JobState.pending, BEFORE_THE_POLL_S)
        assert isinstance(other.retry_many([ids[1]])[ids[1]], int)
        await wait_for(lambda: ledger.job(ids[1]).state != JobState.pending, BEFORE_THE_POLL_S)
    await wait_for(all_done(ledger, ids))
    assert states(ledger, ids) == [JobState.succeeded, JobState.succeeded]


async def test_stop_is_prompt_even_when_woken_at_the_same_moment(
    ledger: Ledger, simulator: Simulator, tmp_path: Path
) -> None:
    """A wake-up landing with the cancellation must not swallow it (asyncio.wait_for on 3.11)."""
    from core.comfy import ComfyClient

    async with ComfyClient(simulator.url) as client:
        for _ in range(20):
            controller = Controller(ledger, client, config=FAST, output_dir=tmp_path / "out")
            await controller.start()
            await asyncio.sleep(0.02)
            controller.wake()
            async with asyncio.timeout(HANG_S):  # a swallowed cancellation: it never returns
                await controller.stop()


async def test_a_batch_past_the_quota_is_refused_before_anything_is_queued(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    MAX_PENDING_PER_REQUESTER.set(ledger, 3)
    PAUSED.set(ledger, True)  # the jobs stay unfinished
    controller = await make_controller(ledger, simulator)
    spec = BatchSpec(seeds=SeedPlan(count=2), requester="ann")
    controller.queue_batch("noise", spec)
    with pytest.raises(QueueBusy) as refused:
        controller.queue_batch("noise", spec)
    assert str(refused.value) == (
        "busy: ann has 2 unfinished jobs and may have 3; the 2 new jobs were not queued (the "
        "last would be at position 4); try again in 10 s (no estimate yet)"
    )
    assert len(ledger.jobs()) == 2

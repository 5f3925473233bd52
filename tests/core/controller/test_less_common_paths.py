"""Paths the scenarios seldom take: a submission answered with garbage, an output node ComfyUI
drops, a batch whose preset was removed, retrying smaller after running out of memory, commands
run on a worker thread, an observer that raises."""

from __future__ import annotations

import copy
import logging
from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.controller import Controller
from core.job_state import JobState, Reason
from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import NOISE_WORKFLOW, wait_for

pytestmark = pytest.mark.asyncio


def states(ledger: Ledger, ids: list[str]) -> list[JobState]:
    return [ledger.job(job_id).state for job_id in ids]


@pytest.mark.expect_log("core.controller.controller")
async def test_a_submission_answered_with_garbage_is_followed_by_its_id_and_runs_once(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    simulator = await make_simulator(faults={"garbage_rate": 1.0, "routes": ["POST /prompt"]})
    (job_id,) = queue(ledger, 1)
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state is JobState.succeeded)
    (attempt,) = ledger.attempts(job_id)
    assert attempt.outputs, "found by its prompt id, its pictures downloaded"


@pytest.mark.parametrize("answer", ["at once", "after the socket said it started"])
async def test_an_output_node_comfyui_drops_is_the_jobs_warning(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController, answer: str
) -> None:
    faults = {"late_answer_rate": 1.0, "late_seconds": 0.3, "routes": ["POST /prompt"]}
    simulator = await make_simulator(faults=faults if answer != "at once" else {})
    workflow = copy.deepcopy(NOISE_WORKFLOW)
    workflow["4"] = {**workflow["1"], "inputs": {**workflow["1"]["inputs"], "width": 0}}
    workflow["5"] = {"class_type": "SaveImage", "inputs": {"images": ["4", 0]}}
    workflow["5"]["inputs"]["filename_prefix"] = "bad"
    ledger.presets.add("two outputs", PresetContent(workflow_hash(workflow), workflow))
    _batch, (job_id,) = queue_batch(ledger, "two outputs", BatchSpec(seeds=SeedPlan(count=1)))
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state is JobState.succeeded)
    job = ledger.job(job_id)
    assert (job.warning or "").startswith("ComfyUI dropped output node(s) 5: ")
    assert "width" in (job.warning or "")
    (output,) = ledger.attempts(job_id)[-1].outputs  # the output node kept made its picture
    assert Path(output).is_file()


async def test_a_batch_whose_preset_was_removed_runs_its_stored_workflow(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    ids = queue(ledger, 2)
    ledger.presets.remove("noise")
    await make_controller(ledger, simulator)
    await wait_for(lambda: states(ledger, ids) == [JobState.succeeded] * 2)
    assert all(Path(ledger.attempts(job_id)[-1].outputs[0]).is_file() for job_id in ids)


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


@pytest.mark.expect_log("core.controller.status", "ERROR")
async def test_an_observer_that_raises_neither_stops_the_controller_nor_the_others(
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[Controller] = []
    controller = await make_controller(ledger, simulator)

    def broken(_status: object) -> None:
        raise RuntimeError("observer bug")

    controller.add_status_listener(broken)
    controller.add_status_listener(lambda _status: seen.append(controller))
    ids = queue(ledger, 2)
    controller.wake()
    await wait_for(lambda: states(ledger, ids) == [JobState.succeeded] * 2)
    await wait_for(lambda: controller.status.done_per_minute > 0)
    assert seen, "the observer after the broken one is still told"
    failures = [r for r in caplog.records if r.getMessage() == "status listener failed"]
    assert failures
    assert all(r.levelno == logging.ERROR and r.exc_info for r in failures)

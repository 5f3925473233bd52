"""A success is recorded, with where it left its pictures on the server, before they are
fetched: a controller stopped at that moment and a ComfyUI restart (which forgets its history,
not its output folder) never make the job run again while its pictures are there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio


async def stopped_while_fetching(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> tuple[str, str]:
    """A job that succeeded on the server, its controller stopped while it fetched the
    pictures, then ComfyUI restarted: (job id, prompt id)."""
    (job_id,) = queue(ledger, 1)
    held = simulator.hold("GET /view")
    controller = await make_controller(ledger, simulator)
    await held.arrived.wait()  # the download began: the success must be in the ledger now
    (attempt,) = ledger.attempts(job_id)
    assert attempt.result == AttemptResult.succeeded
    assert attempt.fetching
    assert attempt.refs
    assert attempt.refs[0]["type"] == "output"
    assert ledger.job(job_id).state == JobState.running, "running until its pictures are here"
    await controller.stop()
    await simulator.restart()
    held.release()
    assert simulator.state.history.get(attempt.prompt_id) is None, "the restart forgot it"
    return job_id, attempt.prompt_id


async def test_a_success_recorded_before_a_restart_is_fetched_not_run_again(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController, tmp_path: Path
) -> None:
    job_id, prompt_id = await stopped_while_fetching(ledger, simulator, make_controller)
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state == JobState.succeeded)
    (attempt,) = ledger.attempts(job_id)
    assert simulator.execution_count(prompt_id) == 1
    assert sum(simulator.stats()["execution_counts"].values()) == 1, "nothing ran again"
    (picture,) = attempt.outputs
    assert Path(picture).is_file()
    assert Path(picture).is_relative_to(tmp_path / "out")
    assert [t.cause for t in ledger.transitions(job_id)][-1] == "finished"


@pytest.mark.expect_log("core.controller")
async def test_a_recorded_success_whose_pictures_are_gone_opens_a_new_attempt(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    job_id, prompt_id = await stopped_while_fetching(ledger, simulator, make_controller)
    shutil.rmtree(simulator.output_dir)  # the server's output folder was emptied
    simulator.output_dir.mkdir()
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state == JobState.succeeded)
    first, second = ledger.attempts(job_id)
    assert (first.result, first.reason) == (AttemptResult.succeeded, Reason.outputs_gone)
    assert first.error is not None
    assert "gone from the server" in first.error.message
    assert first.outputs == []
    assert second.result == AttemptResult.succeeded
    assert len(second.outputs) == 1
    causes = [t.cause for t in ledger.transitions(job_id)]
    assert "outputs_gone: retried as attempt 2" in causes
    assert simulator.execution_count(prompt_id) == 1


async def test_a_success_no_controller_saw_before_a_restart_is_found_by_its_pictures(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """It finished while no controller ran, and ComfyUI restarted before one came back: its
    history is gone, but its pictures are where its own folder named them before it ran."""
    simulator = await make_simulator(job_seconds=0.4)
    (job_id,) = queue(ledger, 1)
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state in (JobState.queued, JobState.running))
    await controller.stop()
    (attempt,) = ledger.attempts(job_id)
    await wait_for(lambda: simulator.state.history.get(attempt.prompt_id) is not None)
    await simulator.restart()
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state == JobState.succeeded)
    (attempt,) = ledger.attempts(job_id)
    assert simulator.execution_count(attempt.prompt_id) == 1
    assert sum(simulator.stats()["execution_counts"].values()) == 1, "nothing ran again"
    (picture,) = attempt.outputs
    assert Path(picture).is_file()
    assert attempt.refs is not None
    assert attempt.refs[0]["subfolder"].endswith(attempt.prompt_id)


async def test_a_prompt_a_restart_cut_off_is_run_again(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """Running when ComfyUI restarted, it saved nothing: no picture is found, it is lost and
    runs again as its next attempt."""
    simulator = await make_simulator(job_seconds=2.0)
    (job_id,) = queue(ledger, 1)
    await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.job(job_id).state == JobState.running)
    await simulator.restart()
    await wait_for(lambda: len(ledger.attempts(job_id)) == 2)
    first = ledger.attempts(job_id)[0]
    assert (first.result, first.reason) == (AttemptResult.lost, Reason.server_lost)

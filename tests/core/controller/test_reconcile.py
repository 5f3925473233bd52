"""Reconcile: our prompts followed on the server from /queue and /history: taken away or
interrupted by another client, cancelled, stalled, unreadable, lost to a restart; a success is
recorded, with where it left its pictures, before they are fetched."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest

from core.controller.status import Connection
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.controller.test_controller import all_done, states
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio


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


async def test_one_unreadable_history_does_not_stop_the_others(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    # No WebSocket: history is the only way to learn how a prompt ended.
    no_socket = {"error_rate": 1.0, "routes": ["GET /ws"]}
    simulator: Simulator = await make_simulator(job_seconds=0.2, faults=no_socket)  # type: ignore[misc]
    first, *others = queue(ledger, 3)
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.attempts(first) != [])
    (attempt,) = ledger.attempts(first)
    # Every read of the first job's history fails from now on: a flaky proxy, say.
    simulator.set_faults(error_rate=1.0, routes=[f"GET /history/{attempt.prompt_id}", "GET /ws"])

    await wait_for(lambda: all(ledger.job(j).state == JobState.succeeded for j in others), 20)
    assert ledger.job(first).state.is_active  # finished, but not readable yet
    # Not taken offline (only its WebSocket is, here: "reconnecting").
    assert controller.status.connection == Connection.reconnecting
    assert "HTTP 500" in controller.status.last_error

    simulator.set_faults(error_rate=0.0)
    await wait_for(lambda: ledger.job(first).state == JobState.succeeded, 10)
    await wait_for(lambda: controller.status.last_error == "", 5)


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

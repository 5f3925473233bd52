"""The controller against the simulator: jobs run, fail, cancel and retry as the transition table
and the retry rules say."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger, PresetContent
from core.ledger.attempt_error import ErrorKind
from core.ledger.settings import PAUSED
from core.presets import workflow_hash
from core.simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import FAST, NOISE_WORKFLOW, wait_for

pytestmark = pytest.mark.asyncio

# Well below a poll interval of 60 s, well above what a busy machine takes to act on a wake-up.
BEFORE_THE_POLL_S = 20.0
HANG_S = 20.0  # bounds a wait that, broken, would never end: not a measure of speed


def states(ledger: Ledger, ids: list[str]) -> list[JobState]:
    return [ledger.job(job_id).state for job_id in ids]


def all_done(ledger: Ledger, ids: list[str]) -> Callable[[], bool]:
    return lambda: all(state.is_terminal for state in states(ledger, ids))


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


async def test_global_cap_is_never_exceeded(
    ledger: Ledger, make_simulator: Callable[..., object], make_controller: MakeController
) -> None:
    simulator = await make_simulator(job_seconds=0.2)  # type: ignore[misc]
    ids = queue(ledger, 6)
    controller = await make_controller(ledger, simulator, global_cap=2)
    peak = 0

    def track(status: object) -> None:
        nonlocal peak
        peak = max(peak, controller.status.server_queue)

    controller.add_status_listener(track)
    await wait_for(all_done(ledger, ids), 30)
    assert 0 < peak <= 2


def record_peak_depth(simulator: Simulator) -> Callable[[], int]:
    """The most prompts (running + pending, all clients) the simulator held at once, so far."""
    queue = simulator.state.queue
    peak = 0

    def changed() -> None:
        nonlocal peak
        peak = max(peak, queue.remaining)

    queue.listeners.append(changed)
    return lambda: peak


@pytest.mark.parametrize(("deep_queue", "ceiling"), [(None, 1), (4, 4)])
async def test_the_caps_are_ceilings_even_for_very_short_jobs(
    ledger: Ledger,
    make_simulator: Callable[..., object],
    make_controller: MakeController,
    deep_queue: int | None,
    ceiling: int,
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.01)  # type: ignore[misc]
    peak = record_peak_depth(simulator)
    ids = queue(ledger, 16)
    deep = {"deep_queue": True, "max_queue_depth": deep_queue} if deep_queue else {}
    await make_controller(ledger, simulator, global_cap=1, per_requester_cap=8, **deep)
    await wait_for(all_done(ledger, ids), 30)
    assert states(ledger, ids) == [JobState.succeeded] * 16
    assert peak() <= ceiling
    assert peak() > 1 if deep_queue else peak() == 1, "only the deep queue goes past the cap"


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


async def test_validation_error_names_node_and_input(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    bad = json.loads(json.dumps(NOISE_WORKFLOW))
    bad["4"] = {
        "class_type": "ImageScale",
        "inputs": {
            "image": ["2", 0],
            "upscale_method": "bogus",
            "width": 32,
            "height": 32,
            "crop": "disabled",
        },
    }
    bad["3"]["inputs"]["images"] = ["4", 0]
    ledger.presets.add("bad", PresetContent(workflow_hash(bad), bad))
    spec = BatchSpec(seeds=SeedPlan(count=1), requester="a")
    (job_id,) = queue_batch(ledger, "bad", spec)[1]
    await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, [job_id]))
    job = ledger.job(job_id)
    assert (job.state, job.reason, job.attempt) == (JobState.failed, Reason.validation_error, 1)
    error = ledger.attempts(job_id)[0].error
    assert error is not None
    assert (error.kind, error.node_id, error.node_type, error.input_name) == (
        ErrorKind.validation,
        "4",
        "ImageScale",
        "upscale_method",
    )
    assert error.short().startswith(
        "validation error in ImageScale (node 4), input 'upscale_method': "
    )


@pytest.mark.expect_log("core.controller.controller")  # when the HTTP refusal comes first
async def test_a_refused_token_stops_the_controller_with_the_reason(
    ledger: Ledger, make_simulator: Callable[..., object], tmp_path: Path
) -> None:
    from core.comfy import ComfyClient
    from core.controller import Controller
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


@pytest.mark.expect_log("core.controller.outputs")
async def test_a_missing_output_is_a_warning_not_a_failure(
    simulator: Simulator, tmp_path: Path
) -> None:
    from core.comfy import ComfyClient, ImageRef
    from core.controller.outputs import fetch_outputs

    async with ComfyClient(simulator.url) as client:
        fetched = await fetch_outputs(client, [ImageRef("gone_00001_.png")], tmp_path, "b", "j")
    assert fetched.paths == []
    assert len(fetched.warnings) == 1
    assert "gone_00001_.png" in fetched.warnings[0]
    assert fetched.gone == 1


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


@pytest.mark.expect_log("core.controller.dispatch", "ERROR")
@pytest.mark.expect_log("core.controller.orphans")  # the prompt it ran, withdrawn
async def test_a_server_that_ignores_our_prompt_ids_fails_the_job_and_pauses(
    ledger: Ledger, simulator: Simulator, tmp_path: Path
) -> None:
    """ComfyUI before client-chosen ids (2025-07) answers with its own id: never follow blindly."""
    from dataclasses import replace as with_changes

    from core.comfy import ComfyClient
    from core.controller import Controller
    from core.ledger.settings import PAUSED

    class OldServerClient(ComfyClient):
        async def submit(self, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
            result = await super().submit(*args, **kwargs)  # type: ignore[arg-type]
            return with_changes(result, prompt_id="server-chosen-id")

    ids = queue(ledger, 3)
    async with OldServerClient(simulator.url) as client:
        controller = Controller(ledger, client, config=FAST, output_dir=tmp_path / "out")
        await controller.start()
        try:
            await wait_for(lambda: ledger.job(ids[0]).state == JobState.failed)
        finally:
            await controller.stop()
    error = ledger.attempts(ids[0])[0].error
    assert error is not None
    assert error.kind == ErrorKind.unsupported_server
    assert "predates client-chosen prompt ids" in error.message
    assert PAUSED.get(ledger) is True
    assert [ledger.job(i).state for i in ids[1:]] == [JobState.pending] * 2


async def test_stop_is_prompt_even_when_woken_at_the_same_moment(
    ledger: Ledger, simulator: Simulator, tmp_path: Path
) -> None:
    """A wake-up landing with the cancellation must not swallow it (asyncio.wait_for on 3.11)."""
    from core.comfy import ComfyClient
    from core.controller import Controller

    async with ComfyClient(simulator.url) as client:
        for _ in range(20):
            controller = Controller(ledger, client, config=FAST, output_dir=tmp_path / "out")
            await controller.start()
            await asyncio.sleep(0.02)
            controller.wake()
            async with asyncio.timeout(HANG_S):  # a swallowed cancellation: it never returns
                await controller.stop()

"""Dispatch: admitted jobs become attempts, each written to the ledger before it is sent; the
rules a submission obeys hold where it is written (``Ledger.submit_attempt``), whatever the
controller read before it; lost, garbled and refused answers never run a prompt twice."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.comfy import new_prompt_id
from core.controller import Controller
from core.controller.commands import LedgerCommands
from core.controller.placing import why_waiting
from core.errors import CapReached, DispatchPaused, IllegalTransition
from core.job_state import JobState, Reason
from core.ledger import Ledger, PresetContent, RequesterCap
from core.ledger.attempt_error import ErrorKind
from core.ledger.settings import PAUSED
from core.presets import workflow_hash
from simulator import Simulator
from tests.core.conftest import MakeSimulator
from tests.core.controller.conftest import MakeController, executions, queue
from tests.core.controller.test_controller import all_done, states
from tests.core.controller.test_fleet import (
    A,
    B,
    last_server,
    queue_models,
    sd_preset,
    succeeded,
)
from tests.core.helpers import FAST, NOISE_WORKFLOW, wait_for


def test_a_submission_is_refused_while_dispatch_is_paused(ledger: Ledger) -> None:
    (job_id,) = queue(ledger, 1)
    PAUSED.set(ledger, True)
    with pytest.raises(DispatchPaused, match="paused"):
        ledger.submit_attempt(job_id, new_prompt_id(), "http://gpu:8188", "hash")
    assert ledger.attempts(job_id) == []
    assert ledger.job(job_id).state == JobState.pending
    PAUSED.set(ledger, False)
    ledger.submit_attempt(job_id, new_prompt_id(), "http://gpu:8188", "hash")
    assert len(ledger.attempts(job_id)) == 1


def test_a_pause_in_the_same_transaction_refuses_the_submission(ledger: Ledger) -> None:
    """The flag is read inside the write's transaction: a pause written earlier in it counts."""
    (job_id,) = queue(ledger, 1)
    with ledger.handle.tx():
        PAUSED.set(ledger, True)
        with pytest.raises(DispatchPaused):
            ledger.submit_attempt(job_id, new_prompt_id(), "http://gpu:8188", "hash")
    assert ledger.attempts(job_id) == []


def test_a_job_already_sent_or_cancelled_is_refused(ledger: Ledger) -> None:
    sent, cancelled = queue(ledger, 2)
    ledger.submit_attempt(sent, new_prompt_id(), "http://gpu:8188", "hash")
    ledger.request_cancel(cancelled)
    for job_id in (sent, cancelled):
        with pytest.raises(IllegalTransition):
            ledger.submit_attempt(job_id, new_prompt_id(), "http://gpu:8188", "hash")
    assert len(ledger.attempts(sent)) == 1
    assert ledger.attempts(cancelled) == []


def test_the_per_requester_cap_is_counted_in_the_write(ledger: Ledger) -> None:
    """Its requester's jobs in flight on that server count, those gone from the queue do not,
    another server's and another requester's do not."""
    server = "http://gpu:8188"
    alice = queue(ledger, 4)
    (bob,) = queue(ledger, 1, requester="bob")
    cap = RequesterCap(2)
    first, second = new_prompt_id(), new_prompt_id()
    ledger.submit_attempt(alice[0], first, server, "hash", cap)
    ledger.submit_attempt(alice[1], second, server, "hash", cap)
    with pytest.raises(CapReached, match="alice has 2 jobs in flight"):
        ledger.submit_attempt(alice[2], new_prompt_id(), server, "hash", cap)
    assert ledger.attempts(alice[2]) == []
    ledger.submit_attempt(bob, new_prompt_id(), server, "hash", cap)
    ledger.submit_attempt(alice[2], new_prompt_id(), "http://other:8188", "hash", cap)
    ledger.observe_queued(first, 1)
    ledger.submit_attempt(alice[3], new_prompt_id(), server, "hash", RequesterCap(2, (first,)))
    assert len(ledger.attempts(alice[3])) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("burst", [False, True], ids=["one-by-one", "written-together"])
async def test_a_pause_written_while_the_queue_is_read_stops_what_that_tick_would_send(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController, burst: bool
) -> None:
    """The race the controller had: a tick read the flag, then awaited ``GET /queue``; a pause
    and three jobs written meanwhile by another process were sent with the old reading.

    ``burst``: the server has kept one of our prompt ids, so a tick writes its jobs together.
    """
    if burst:
        first = queue(ledger, 1, start=100)
    controller = await make_controller(ledger, simulator)
    if burst:
        await wait_for(lambda: ledger.job(first[0]).state == JobState.succeeded)
    await wait_for(lambda: controller.status.server_queue == 0 and bool(controller.status.servers))
    hold = simulator.hold("GET /queue")
    await hold.arrived.wait()  # a tick is waiting for ComfyUI's queue now
    with Ledger(ledger.folder) as other:  # `batchline pause`, then `batchline queue`
        PAUSED.set(other, True)
        ids = queue(other, 3)
    prompts_before = sum(simulator.stats()["execution_counts"].values())
    next_tick = simulator.hold("GET /queue")  # replaces the first, held on until released
    hold.release()
    await next_tick.arrived.wait()  # the tick that read the old flag has ended
    next_tick.release()
    assert [ledger.job(job_id).state for job_id in ids] == [JobState.pending] * 3
    assert all(ledger.attempts(job_id) == [] for job_id in ids)
    assert sum(simulator.stats()["execution_counts"].values()) == prompts_before
    PAUSED.set(ledger, False)
    await wait_for(lambda: all(ledger.job(job_id).state == JobState.succeeded for job_id in ids))


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


@pytest.mark.asyncio
async def test_a_batch_whose_preset_was_removed_runs_its_stored_workflow(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    ids = queue(ledger, 2)
    ledger.presets.remove("noise")
    await make_controller(ledger, simulator)
    await wait_for(lambda: states(ledger, ids) == [JobState.succeeded] * 2)
    assert all(Path(ledger.attempts(job_id)[-1].outputs[0]).is_file() for job_id in ids)


@pytest.mark.asyncio
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


@pytest.mark.asyncio
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


# The queue deepens to hold two polls of work (`core.controller.admission`): with a poll of
# 0.5 s, 50 ms jobs ask for more than any ceiling here, however slow the machine runs them (and
# they outlast a POST, so the queue fills). Events, not the poll, refill it: no slower a test.
SLOW_POLL = 0.5


@pytest.mark.asyncio
@pytest.mark.parametrize("depth", [8, 5])
async def test_with_the_default_caps_short_jobs_deepen_the_queue_up_to_its_ceiling(
    ledger: Ledger,
    make_simulator: Callable[..., object],
    make_controller: MakeController,
    depth: int,
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.05)  # type: ignore[misc]
    peak = record_peak_depth(simulator)
    ids = queue(ledger, 40)
    controller = await make_controller(
        ledger, simulator, max_queue_depth=depth, poll_active_s=SLOW_POLL
    )
    await wait_for(all_done(ledger, ids), 60)
    assert states(ledger, ids) == [JobState.succeeded] * 40
    assert 3 < peak() <= depth, "deeper than the caps' default 3, never above the ceiling"
    assert controller.status.queue_depth == depth  # what the status bar says of the cap


@pytest.mark.asyncio
async def test_with_the_default_caps_long_jobs_keep_the_shallow_queue(
    ledger: Ledger, make_simulator: Callable[..., object], make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.2)  # type: ignore[misc]
    peak = record_peak_depth(simulator)
    ids = queue(ledger, 8)
    controller = await make_controller(ledger, simulator)  # 0.2 s jobs: 4 polls of 0.05 s
    await wait_for(all_done(ledger, ids), 30)
    assert peak() == 3
    assert controller.status.queue_depth == 3


@pytest.mark.asyncio
@pytest.mark.parametrize("caps", [{"global_cap": 2}, {"per_requester_cap": 2}])
async def test_a_cap_the_artist_set_is_a_ceiling_for_short_jobs(
    ledger: Ledger,
    make_simulator: Callable[..., object],
    make_controller: MakeController,
    caps: dict[str, int],
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.05)  # type: ignore[misc]
    peak = record_peak_depth(simulator)
    ids = queue(ledger, 24)
    await make_controller(ledger, simulator, poll_active_s=SLOW_POLL, **caps)
    await wait_for(all_done(ledger, ids), 60)
    assert peak() == 2


@pytest.mark.asyncio
async def test_a_requester_that_filled_the_deep_queue_alone_yields_to_the_next(
    ledger: Ledger, make_simulator: Callable[..., object], make_controller: MakeController
) -> None:
    """Alice alone fills the queue; once Bob waits, each is held to the per-requester cap (3):
    Bob's first three go before any more of Alice's, which already holds more than 3."""
    simulator: Simulator = await make_simulator(job_seconds=0.05)  # type: ignore[misc]
    depth = record_peak_depth(simulator)
    alice = queue(ledger, 60)
    await make_controller(ledger, simulator, poll_active_s=SLOW_POLL)
    await wait_for(lambda: depth() >= 7, 30)
    bob = queue(ledger, 6, requester="bob", start=1000)
    await wait_for(all_done(ledger, alice + bob), 60)
    attempts = ledger.attempts_of(alice + bob)
    sent = sorted((a.created_at, a.job_id in bob) for tries in attempts.values() for a in tries)
    order = [is_bob for _, is_bob in sent]
    first_bob = order.index(True)
    third_bob = [n for n, is_bob in enumerate(order) if is_bob][2]
    assert order[first_bob:third_bob].count(False) == 0, "alice went on past her cap"
    assert order[third_bob:].count(False) > 0, "then they take turns"


@pytest.mark.asyncio
async def test_with_the_default_caps_two_requesters_take_turns(
    ledger: Ledger, make_simulator: Callable[..., object], make_controller: MakeController
) -> None:
    simulator: Simulator = await make_simulator(job_seconds=0.05)  # type: ignore[misc]
    alice = queue(ledger, 20)
    bob = queue(ledger, 20, requester="bob", start=1000)
    await make_controller(ledger, simulator, poll_active_s=SLOW_POLL)
    await wait_for(all_done(ledger, alice + bob), 60)
    attempts = ledger.attempts_of(alice + bob)
    sent = sorted((a.created_at, a.job_id in bob) for tries in attempts.values() for a in tries)
    ahead = 0  # alice's jobs sent minus bob's, while both had jobs waiting
    for _, is_bob in sent[:30]:
        ahead += -1 if is_bob else 1
        assert abs(ahead) <= 3, "one requester went past its cap while the other waited"


@pytest.mark.asyncio
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


@pytest.mark.asyncio
@pytest.mark.expect_log("core.controller.dispatch", "ERROR")
@pytest.mark.expect_log("core.controller.orphans")  # the prompt it ran, withdrawn
async def test_a_server_that_ignores_our_prompt_ids_fails_the_job_and_pauses(
    ledger: Ledger, simulator: Simulator, tmp_path: Path
) -> None:
    """ComfyUI before client-chosen ids (2025-07) answers with its own id: never follow blindly."""
    from dataclasses import replace as with_changes

    from core.comfy import ComfyClient
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


# --- placement: refusals for a model the server stopped listing -----------------------------


def stored_checkpoints(ledger: Ledger, url: str) -> list[str]:
    return ledger.server_offers.all()[url].offer.listing().get("checkpoints", [])


@pytest.mark.asyncio
async def test_a_server_refusing_a_model_it_stopped_listing_is_reread_and_the_job_goes_elsewhere(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    stale = await make_simulator(models={"checkpoints": [A]})
    keeps = await make_simulator(models={"checkpoints": [A]})
    sd_preset(ledger)
    PAUSED.set(ledger, True)
    controller = await make_controller(ledger, [stale, keeps])
    await wait_for(lambda: len(ledger.server_offers.all()) == 2, 10)
    stale.set_models({"checkpoints": [B]})  # its files changed; the controller does not know
    ids = queue_models(ledger, A, seeds=12)
    controller.resume()
    await wait_for(lambda: succeeded(ledger, ids), 30)
    refused = [a for j in ids for a in ledger.attempts(j) if a.reason == Reason.model_missing]
    assert refused, "it was sent there first"
    assert {a.server for a in refused} == {stale.url}
    assert {last_server(ledger, j) for j in ids} == {keeps.url}
    assert stored_checkpoints(ledger, stale.url) == [B]
    assert all(ledger.job(j).reason is None for j in ids)


@pytest.mark.asyncio
async def test_a_job_refused_everywhere_waits_and_runs_once_the_models_are_read_again(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController
) -> None:
    """Refused, it waits (not failed) with its reason; "Refresh models" finds the file back."""
    sim = await make_simulator(models={"checkpoints": [A]})
    sd_preset(ledger)
    PAUSED.set(ledger, True)
    controller = await make_controller(ledger, sim)
    await wait_for(lambda: sim.url in ledger.server_offers.all(), 10)
    sim.set_models({"checkpoints": [B]})
    (job,) = queue_models(ledger, A)
    controller.resume()
    await wait_for(lambda: stored_checkpoints(ledger, sim.url) == [B], 10)
    await wait_for(lambda: why_waiting(ledger, ledger.job(job)) == f"no server has {A}", 10)
    assert ledger.job(job).state is JobState.pending
    assert ledger.attempts(job)[0].reason == Reason.model_missing
    sim.set_models({"checkpoints": [A, B]})
    LedgerCommands(ledger).refresh_models()  # as `batchline servers --refresh` does
    await wait_for(lambda: succeeded(ledger, [job]), 30)
    assert stored_checkpoints(ledger, sim.url) == [A, B]


# LoadImage -> ImageAddNoise(seed) -> SaveImage, the stories' image-to-image (no models).
def _picture_jobs(ledger: Ledger, paths: list[Path]) -> list[str]:
    from core.batch import GridAxis
    from core.inputs import PictureStore
    from tests.core.controller.test_stories_pictures import IMG2IMG

    ledger.presets.add("img2img", PresetContent(workflow_hash(IMG2IMG), IMG2IMG))
    store = PictureStore.of(ledger)
    axis = GridAxis("1.image", tuple(store.add(path).to_param() for path in paths))
    return queue_batch(ledger, "img2img", BatchSpec(grid=(axis,)))[1]


@pytest.mark.asyncio
async def test_a_picture_the_server_refuses_fails_its_job_naming_the_file(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController, tmp_path: Path
) -> None:
    """Too large for this server's upload limit (413): its job fails, unsent, in one line
    naming the picture; the other picture's job runs."""
    from tests.core.inputs.pictures import make_noise_png, make_png

    simulator = await make_simulator(max_upload_size=4096)
    small = make_png(tmp_path / "small.png")
    big = make_noise_png(tmp_path / "big render.png", side=64)
    ids = _picture_jobs(ledger, [small, big])
    await make_controller(ledger, simulator)
    await wait_for(all_done(ledger, ids))
    assert states(ledger, ids) == [JobState.succeeded, JobState.failed]
    failed = ledger.job(ids[1])
    assert failed.reason == Reason.validation_error
    (attempt,) = ledger.attempts(ids[1])
    assert attempt.error is not None
    assert attempt.error.kind == ErrorKind.validation
    assert (attempt.error.node_id, attempt.error.input_name) == ("1", "image")
    message = attempt.error.message
    assert message.startswith(f"{simulator.url} refused the picture big render.png: ")
    assert "\n" not in message
    assert executions(simulator, ledger, ids[1]) == 0
    assert simulator.inputs_read().get(attempt.prompt_id) is None, "never sent"


@pytest.mark.asyncio
@pytest.mark.expect_log("core.controller.controller")  # the server unreachable
async def test_a_picture_upload_that_cannot_reach_the_server_leaves_its_job_pending(
    ledger: Ledger, make_simulator: MakeSimulator, make_controller: MakeController, tmp_path: Path
) -> None:
    """Every upload dropped: the job waits with no attempt (no failed job, nothing sent), and
    runs once uploads get through."""
    from tests.core.inputs.pictures import make_png

    simulator = await make_simulator(faults={"drop_rate": 1.0, "routes": ["POST /upload/image"]})
    (job_id,) = _picture_jobs(ledger, [make_png(tmp_path / "fox.png")])
    await make_controller(ledger, simulator)
    await wait_for(lambda: simulator.http_faults.counts["drop"] >= 2)  # tried, and again
    assert ledger.job(job_id).state == JobState.pending
    assert ledger.attempts(job_id) == []
    simulator.set_faults(drop_rate=0.0)
    await wait_for(lambda: ledger.job(job_id).state == JobState.succeeded, 30)
    assert len(ledger.attempts(job_id)) == 1

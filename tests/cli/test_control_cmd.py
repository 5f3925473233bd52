"""`batchline cancel|retry|pause|resume`: on the ledger, acted on by a running controller."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from core.comfy import ComfyClient
from core.controller import Controller
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from core.ledger.settings import PAUSED, ControllerConfig
from core.paths import ledger_path
from simulator import Simulator
from tests.cli.conftest import Cli, Result
from tests.core.helpers import FAST, wait_for

StartController = Callable[..., Awaitable[Controller]]
# Polling ComfyUI only every minute: what the controller does well before (within
# BEFORE_THE_POLL_S, a bound on a hang, not on speed), the change feed made it do.
SLOW_POLL = dataclasses.replace(FAST, poll_active_s=60.0, poll_idle_s=60.0)
BEFORE_THE_POLL_S = 20.0


def queue(cli: Cli, count: int) -> list[str]:
    return cli("queue", "noise", "--count", str(count)).out.split()


def state(home: Path, job_id: str) -> JobState:
    with Ledger(home) as ledger:
        return ledger.job(job_id).state


async def in_thread(cli: Cli, *args: str) -> Result:
    """Run a CLI command off the event loop, so the in-process controller keeps running."""
    return await asyncio.to_thread(cli, *args)


# --- no controller: straight on the ledger -----------------------------------------------------


def test_cancel_and_retry_without_a_controller(cli: Cli, noise: str, home: Path) -> None:
    first, second = queue(cli, 2)
    cancelled = cli("cancel", first)
    assert (cancelled.code, cancelled.out.strip()) == (0, f"{first}: cancelled")
    again = cli("cancel", first)
    assert again.code == 1
    assert "refused" in again.out
    retried = cli("retry", first)
    assert (retried.code, retried.out.strip()) == (0, f"{first}: pending as attempt 2")
    refused = cli("retry", second)
    assert refused.code == 1
    assert "only failed or cancelled jobs can be retried" in refused.out
    with Ledger(home) as ledger:
        assert ledger.job(first).attempt == 2
        assert ledger.lease.held is False
        ledger.lease.acquire()  # the CLI let go of it


def test_cancel_a_batch_without_a_controller(cli: Cli, noise: str, home: Path) -> None:
    ids = queue(cli, 3)
    batch = cli("show", ids[0], "--json").json()["batch"]
    result = cli("cancel", "--batch", batch)
    assert result.code == 0
    assert "3 jobs asked to cancel (3 cancelled at once)" in result.out
    assert {state(home, job_id) for job_id in ids} == {JobState.cancelled}


def test_a_controller_starts_while_a_bulk_cancel_works(cli: Cli, noise: str, home: Path) -> None:
    ids = queue(cli, 3000)
    batch = cli("show", ids[0], "--json").json()["batch"]
    writer = sqlite3.connect(ledger_path(home), isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # the cancel waits for the write lock: it is at work
    results: list[Result] = []
    command = threading.Thread(target=lambda: results.append(cli("cancel", "--batch", batch)))
    command.start()
    try:
        time.sleep(1.0)  # well past the check for a controller, into the transaction
        assert command.is_alive()
        with Ledger(home) as controller:
            controller.lease.acquire()  # no wait: the command does not hold the lease
            writer.execute("ROLLBACK")
            command.join(timeout=30)
    finally:
        writer.close()
        command.join(timeout=30)
    (result,) = results
    assert (result.code, result.out.strip()) == (
        0,
        f"{batch}: 3000 jobs asked to cancel (3000 cancelled at once)",
    )
    with Ledger(home) as ledger:
        assert ledger.count_by_state() == {JobState.cancelled: 3000}


def test_cancel_and_retry_of_many_named_jobs(cli: Cli, noise: str, home: Path) -> None:
    ids = queue(cli, 4)
    cancelled = cli("cancel", *ids[:3])
    assert cancelled.out.splitlines() == [f"{job_id}: cancelled" for job_id in ids[:3]]
    retried = cli("retry", *ids)
    assert retried.code == 1
    assert retried.out.splitlines() == [
        *(f"{job_id}: pending as attempt 2" for job_id in ids[:3]),
        f"{ids[3]}: refused: job {ids[3]} is pending: only failed or cancelled jobs can be retried",
    ]
    with Ledger(home) as ledger:
        assert [len(ledger.transitions(job_id)) for job_id in ids] == [2, 2, 2, 0]


def test_bad_cancel_and_retry_arguments_are_exit_2(cli: Cli, noise: str) -> None:
    (job_id,) = queue(cli, 1)
    assert cli("cancel").code == 2
    assert cli("cancel", job_id, "--batch", "b").code == 2
    assert cli("retry").code == 2
    assert cli("retry", job_id, "--batch", "b").code == 2
    assert cli("retry", "--batch", "batch_nope").code == 2
    unknown = cli("cancel", job_id, "job_nope")
    assert (unknown.code, unknown.err.strip()) == (2, "batchline: no job 'job_nope'")
    assert cli("cancel", "--batch", "batch_nope").code == 2
    assert cli("show", job_id, "--json").json()["state"] == "pending"


def test_pause_and_resume_set_the_shared_setting(cli: Cli, home: Path) -> None:
    assert cli("pause").code == 0
    with Ledger(home) as ledger:
        assert PAUSED.get(ledger) is True
    assert cli("resume").code == 0
    with Ledger(home) as ledger:
        assert PAUSED.get(ledger) is False


def test_cancel_wait_gives_up_saying_the_state_when_nobody_acts(
    cli: Cli, noise: str, home: Path
) -> None:
    (job_id,) = queue(cli, 1)
    with Ledger(home) as ledger:
        ledger.submit_attempt(job_id, "p-1", "http://x", "wf")  # sent by a controller now gone
    result = cli("cancel", job_id, "--wait", "--timeout", "0.3")
    assert result.code == 1
    assert result.out.strip() == f"{job_id}: cancelling"
    assert result.err.strip() == (
        f"batchline: {job_id}: still cancelling after 0.3 s (is a controller running?)"
    )


def test_cancel_wait_returns_at_once_when_nothing_was_sent(cli: Cli, noise: str) -> None:
    """A job cancelled at once leaves nothing to wait for: with no controller running, a wait
    for it would end only at the timeout, saying it is still cancelling, with code 1."""
    (job_id,) = queue(cli, 1)
    result = cli("cancel", job_id, "--wait", "--timeout", "10")
    assert (result.code, result.out.strip(), result.err) == (0, f"{job_id}: cancelled", "")


def test_retry_has_no_wait(cli: Cli, noise: str) -> None:
    (job_id,) = queue(cli, 1)
    assert cli("retry", job_id, "--wait").code == 2


# --- with a controller running in this process --------------------------------------------------


@pytest_asyncio.fixture
async def start_controller(home: Path, tmp_path: Path) -> AsyncIterator[StartController]:
    running: list[tuple[Controller, ComfyClient, Ledger]] = []

    async def start(simulator: Simulator, config: ControllerConfig = FAST) -> Controller:
        ledger, client = Ledger(home), ComfyClient(simulator.url)
        controller = Controller(ledger, client, config=config, output_dir=tmp_path / "out")
        await controller.start()
        running.append((controller, client, ledger))
        return controller

    yield start
    for controller, client, ledger in running:
        await controller.stop()
        await client.aclose()
        ledger.close()


async def succeeded(cli: Cli, *args: str) -> str:
    """Run a CLI command off the event loop; its output."""
    result = await in_thread(cli, *args)
    assert result.code == 0, result.err
    return result.out


def prompt_of(home: Path, job_id: str) -> str:
    with Ledger(home) as ledger:
        return ledger.attempts(job_id)[-1].prompt_id


@pytest.mark.asyncio
async def test_cancel_and_retry_reach_a_running_controller_through_the_ledger(
    cli: Cli,
    noise: str,
    home: Path,
    make_simulator: Callable[..., Awaitable[Simulator]],
    start_controller: StartController,
) -> None:
    """A cancel and a retry from the CLI (its own ledger handle, no controller object) are acted
    on well before the controller's next poll of ComfyUI, a minute away (and no prompt ends
    meanwhile to wake it): the change feed woke it."""
    simulator = await make_simulator(job_seconds=60.0)
    ids = queue(cli, 3)
    await start_controller(simulator, SLOW_POLL)
    waiting = (JobState.queued, JobState.running)
    await wait_for(lambda: all(state(home, i) in waiting for i in ids))

    def in_comfy() -> set[str]:
        queue = simulator.state.queue
        running = [queue.running.prompt_id] if queue.running is not None else []
        return {item.prompt_id for item in queue.pending()} | set(running)

    pending = {item.prompt_id for item in simulator.state.queue.pending()}
    target = next(i for i in ids if prompt_of(home, i) in pending)  # queued, not running
    prompt = prompt_of(home, target)

    out = await succeeded(cli, "cancel", target)
    assert out.strip() == f"{target}: cancelling"
    await wait_for(lambda: prompt not in in_comfy(), BEFORE_THE_POLL_S)  # deleted there
    await wait_for(lambda: state(home, target) == JobState.cancelled, BEFORE_THE_POLL_S)

    out = await succeeded(cli, "retry", target)
    assert out.strip() == f"{target}: pending as attempt 2"
    await wait_for(lambda: state(home, target) in waiting, BEFORE_THE_POLL_S)  # sent again
    assert prompt_of(home, target) != prompt
    assert prompt_of(home, target) in in_comfy()


@pytest.mark.asyncio
async def test_cancel_wait_returns_once_the_controller_cancelled_a_running_job(
    cli: Cli,
    noise: str,
    home: Path,
    make_simulator: Callable[..., Awaitable[Simulator]],
    start_controller: StartController,
) -> None:
    simulator = await make_simulator(job_seconds=5.0)
    (job_id,) = queue(cli, 1)
    await start_controller(simulator)
    await wait_for(lambda: state(home, job_id) == JobState.running)
    waited = await in_thread(cli, "cancel", job_id, "--wait")
    assert (waited.code, waited.out.strip()) == (0, f"{job_id}: cancelling")
    assert state(home, job_id) == JobState.cancelled
    with Ledger(home) as ledger:
        (attempt,) = ledger.attempts(job_id)
    assert (attempt.result, attempt.reason) == (AttemptResult.cancelled, Reason.cancelled.value)


@pytest.mark.asyncio
async def test_cancel_batch_through_a_running_controller(
    cli: Cli,
    noise: str,
    home: Path,
    make_simulator: Callable[..., Awaitable[Simulator]],
    start_controller: StartController,
) -> None:
    """All five end cancelled, the running one interrupted: its job lasts 3 s, so it does not
    succeed first on a busy machine (the interrupt lands between its 1 s nodes)."""
    simulator = await make_simulator(job_seconds=3.0)
    ids = queue(cli, 5)
    batch = cli("show", ids[0], "--json").json()["batch"]
    await start_controller(simulator)
    await wait_for(lambda: state(home, ids[0]) == JobState.running)
    result = await in_thread(cli, "cancel", "--batch", batch, "--wait")
    assert result.code == 0, result.err
    assert result.out.strip().startswith(f"{batch}: 5 jobs asked to cancel (")
    assert all(state(home, i) == JobState.cancelled for i in ids)


@pytest.mark.asyncio
async def test_a_direct_cancel_is_finished_by_the_next_controller_run(
    cli: Cli,
    noise: str,
    home: Path,
    make_simulator: Callable[..., Awaitable[Simulator]],
    start_controller: StartController,
) -> None:
    """Cancelled while no controller ran, a running prompt is interrupted by the next one: it
    ends cancelled, never succeeded (as it would if nobody acted; succeeded is final, so the
    wait needs no bound below the job's 6 s)."""
    simulator = await make_simulator(job_seconds=6.0)
    (job_id,) = queue(cli, 1)
    controller = await start_controller(simulator)
    await wait_for(lambda: state(home, job_id) == JobState.running)
    await controller.stop()  # the prompt keeps running in ComfyUI

    result = cli("cancel", job_id)
    assert result.out.strip() == f"{job_id}: cancelling"
    await start_controller(simulator)
    await wait_for(lambda: state(home, job_id) == JobState.cancelled, BEFORE_THE_POLL_S)
    with Ledger(home) as ledger:
        (attempt,) = ledger.attempts(job_id)
    assert attempt.result == AttemptResult.cancelled

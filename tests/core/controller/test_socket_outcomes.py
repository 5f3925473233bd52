"""A success seen whole on the WebSocket is its history entry: no /history read; anything less
(a reconnect, a skipped message, a cached node that may hold outputs and said nothing) is read
from history as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.comfy import (
    ComfyClient,
    Disconnected,
    Executed,
    ExecutionCached,
    ExecutionError,
    ExecutionStart,
    ExecutionSuccess,
    ImageRef,
    Reconnected,
)
from core.controller import socket_outcomes
from core.controller.socket_outcomes import SocketOutcomes, quiet_nodes
from core.errors import ExecutionFailure
from core.job_state import JobState
from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import NOISE_WORKFLOW, wait_for

PID = "p1"
SAVED = ImageRef("noise_00001_.png", "", "output", "3")
QUIET = frozenset({"1", "2"})  # EmptyImage, ImageAddNoise: no output nodes


def run(
    outcomes: SocketOutcomes, *middle: Any, cached: tuple[str, ...] = ("1",), skipped: int = 0
) -> None:
    """One prompt's messages as the server sends them, ``middle`` among them; the listener had
    skipped ``skipped`` malformed messages by its end."""
    outcomes.see(ExecutionStart(PID, 1_000_500))
    outcomes.see(ExecutionCached(PID, cached))
    outcomes.see(Executed(PID, "3", (SAVED,)))
    for event in middle:
        outcomes.see(event)
    outcomes.see(ExecutionSuccess(PID, 1_002_000), skipped)


def test_a_success_seen_whole_is_its_history_entry_once() -> None:
    outcomes = SocketOutcomes()
    outcomes.expect(PID, QUIET)
    run(outcomes)
    entry = outcomes.take(PID)
    assert entry is not None
    assert entry.succeeded
    assert entry.images == (SAVED,)
    assert (entry.started_at, entry.finished_at) == (1000.5, 1002.0)
    assert outcomes.take(PID) is None


def test_every_output_node_counts_and_a_repeated_one_keeps_its_last_images() -> None:
    outcomes = SocketOutcomes()
    outcomes.expect(PID, QUIET)
    other = ImageRef("other_00001_.png", "", "output", "4")
    again = ImageRef("noise_00002_.png", "", "output", "3")
    run(outcomes, Executed(PID, "4", (other,)), Executed(PID, "3", (again,)))
    entry = outcomes.take(PID)
    assert entry is not None
    assert entry.images == (again, other)


def test_a_prompt_not_announced_is_left_to_history() -> None:
    outcomes = SocketOutcomes()
    run(outcomes)
    assert outcomes.take(PID) is None


@pytest.mark.parametrize(
    "midway",
    [
        Disconnected("connection closed", 0.5),
        Reconnected("me", 1),
        ExecutionStart(PID, 1_001_000),  # run again: only history tells which run it keeps
    ],
    ids=["disconnected", "reconnected", "run again"],
)
def test_anything_missed_midway_leaves_it_to_history(midway: Any) -> None:
    outcomes = SocketOutcomes()
    outcomes.expect(PID, QUIET)
    run(outcomes, midway)
    assert outcomes.take(PID) is None


def test_a_message_skipped_midway_leaves_it_to_history() -> None:
    outcomes = SocketOutcomes()
    outcomes.expect(PID, QUIET)
    run(outcomes, skipped=1)
    assert outcomes.take(PID) is None


def test_a_cached_node_that_may_hold_outputs_must_send_them_again() -> None:
    resent, silent, custom = SocketOutcomes(), SocketOutcomes(), SocketOutcomes()
    for outcomes in (resent, silent, custom):
        outcomes.expect(PID, QUIET)
    run(resent, cached=("1", "3"))  # the cached SaveImage re-sent its executed
    run(silent, cached=("1", "4"))  # a cached SaveImage "4" said nothing
    run(custom, cached=("1", "9"))  # a custom class: it may be an output node
    assert resent.take(PID) is not None
    assert silent.take(PID) is None
    assert custom.take(PID) is None


def test_no_execution_cached_read_or_a_failure_leaves_it_to_history() -> None:
    unread, failed = SocketOutcomes(), SocketOutcomes()
    for outcomes in (unread, failed):
        outcomes.expect(PID, QUIET)
    unread.see(ExecutionStart(PID, 1))
    unread.see(Executed(PID, "3", (SAVED,)))
    unread.see(ExecutionSuccess(PID, 2))
    failure = ExecutionFailure(kind="other", message="boom")
    failed.see(ExecutionStart(PID, 1))
    failed.see(ExecutionError(PID, failure))
    failed.see(ExecutionSuccess(PID, 2))
    assert unread.take(PID) is None
    assert failed.take(PID) is None


def test_records_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket_outcomes, "MAX_KEPT", 2)
    outcomes = SocketOutcomes()
    for pid in ("a", "b", "c"):
        outcomes.expect(pid, QUIET)
        outcomes.see(ExecutionStart(pid, 1))
        outcomes.see(ExecutionCached(pid, ()))
        outcomes.see(ExecutionSuccess(pid, 2))
    assert [outcomes.take(pid) is not None for pid in ("a", "b", "c")] == [False, True, True]


def test_quiet_nodes_are_stock_classes_that_are_no_output_nodes() -> None:
    prompt = {
        **NOISE_WORKFLOW,
        "4": {"class_type": "PreviewImage", "inputs": {"images": ["2", 0]}},
        "5": {"class_type": "MyCustomSaver", "inputs": {"images": ["2", 0]}},
    }
    assert quiet_nodes(prompt) == {"1", "2"}


# --- through the controller ---------------------------------------------------------------------

TWO_SAVES = {
    **NOISE_WORKFLOW,
    "4": {"class_type": "ImageBlur", "inputs": {"image": ["2", 0], "blur_radius": 1, "sigma": 1.0}},
    "5": {"class_type": "SaveImage", "inputs": {"images": ["4", 0], "filename_prefix": "blur"}},
}


def count_history_reads(client: ComfyClient, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The prompt ids ``client`` reads history of (the real reads still happen)."""
    reads: list[str] = []
    real = client.history

    async def history(prompt_id: str) -> Any:
        reads.append(prompt_id)
        return await real(prompt_id)

    monkeypatch.setattr(client, "history", history)
    return reads


@pytest.mark.asyncio
async def test_jobs_seen_whole_on_the_socket_are_not_read_from_history(
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ledger.presets.add("two", PresetContent(workflow_hash(TWO_SAVES), TWO_SAVES))
    controller = await make_controller(ledger, simulator)
    client = controller.links[0].client
    reads = count_history_reads(client, monkeypatch)
    await wait_for(lambda: client.client_id in simulator.state.hub.sockets)
    _, ids = queue_batch(ledger, "two", BatchSpec(seeds=SeedPlan(count=4, start=1)))
    controller.wake()
    await wait_for(lambda: not ledger.has_active_jobs())
    jobs = [ledger.job(job_id) for job_id in ids]
    assert [job.state for job in jobs] == [JobState.succeeded] * 4
    attempts = ledger.attempts_of(ids)
    ours = {tries[-1].prompt_id for tries in attempts.values()}
    assert not ours & set(reads), "a success seen whole was read from history again"
    async with ComfyClient(simulator.url) as client:
        for job_id in ids:
            entry = await client.history(attempts[job_id][-1].prompt_id)
            assert entry is not None
            paths = attempts[job_id][-1].outputs
            assert len(paths) == len(entry.images) == 2  # both SaveImage nodes' pictures
            assert all(Path(path).is_file() for path in paths)


@pytest.mark.asyncio
async def test_without_the_socket_the_outcome_is_read_from_history(
    ledger: Ledger,
    make_simulator: Any,
    make_controller: MakeController,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    simulator = await make_simulator(faults={"error_rate": 1.0, "routes": ["GET /ws"]})
    ids = queue(ledger, 2)
    controller = await make_controller(ledger, simulator)
    reads = count_history_reads(controller.links[0].client, monkeypatch)
    await wait_for(lambda: not ledger.has_active_jobs())
    attempts = ledger.attempts_of(ids)
    assert all(tries[-1].result == "succeeded" for tries in attempts.values())
    assert {tries[-1].prompt_id for tries in attempts.values()} <= set(reads)

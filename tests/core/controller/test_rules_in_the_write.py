"""The rules a submission obeys hold where it is written (``Ledger.submit_attempt``), whatever
the controller read before it: a pause written while a tick waits on ComfyUI is obeyed."""

from __future__ import annotations

import pytest

from core.comfy import new_prompt_id
from core.errors import CapReached, DispatchPaused, IllegalTransition
from core.job_state import JobState
from core.ledger import Ledger, RequesterCap
from core.ledger.settings import PAUSED
from core.simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import wait_for


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

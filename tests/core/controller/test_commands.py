"""The command object: each command one ledger transaction, then ``acted()`` once; a batch's
jobs read and changed together; retry smaller within backpressure as any new job."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import pytest

from core.batch import BatchSpec, SeedPlan
from core.controller.backpressure import Limits
from core.controller.commands import LedgerCommands
from core.errors import QueueBusy, UnknownRecord
from core.job_state import JobState, Reason
from core.ledger import Ledger
from core.ledger.attempt_error import AttemptError, ErrorKind
from core.ledger.marks import Mark
from core.ledger.settings import PAUSED

if TYPE_CHECKING:
    from collections.abc import Callable


class Counted(LedgerCommands):
    """Counts ``acted()``, as the in-process controller is woken by it."""

    woken = 0

    def acted(self) -> None:
        self.woken += 1


def failed_out_of_memory(ledger: Ledger, job_id: str) -> None:
    ledger.submit_attempt(job_id, f"p-{job_id}", "http://x", "wf")
    ledger.observe_queued(f"p-{job_id}", 1)
    ledger.observe_running(f"p-{job_id}")
    error = AttemptError(ErrorKind.oom, "CUDA out of memory")
    ledger.observe_failed(f"p-{job_id}", Reason.oom, error)


def test_each_command_wakes_the_controller_once(ledger: Ledger) -> None:
    commands = Counted(ledger)
    batch, ids = commands.queue_batch("noise", BatchSpec(seeds=SeedPlan(count=3)))
    commands.cancel(ids[:1])
    commands.cancel_batch(batch.id)
    commands.retry(ids[:1])
    commands.retry_failed(batch.id)
    commands.cancel_all_but_running()
    commands.pause()
    commands.resume()
    commands.mark(ids, Mark.star)
    commands.name_batch(batch.id, "dusk")
    assert commands.woken == 10
    assert not PAUSED.get(ledger)
    assert ledger.batch(batch.id).name == "dusk"


def test_a_batch_command_names_an_unknown_batch(ledger: Ledger) -> None:
    commands = LedgerCommands(ledger)
    for command in (commands.cancel_batch, commands.retry_failed):
        with pytest.raises(UnknownRecord, match="no batch 'batch_x'"):
            command("batch_x")


def test_cancel_all_but_running_leaves_the_running_ones(ledger: Ledger) -> None:
    commands = LedgerCommands(ledger)
    _batch, ids = commands.queue_batch("noise", BatchSpec(seeds=SeedPlan(count=2)))
    ledger.submit_attempt(ids[0], "p0", "http://x", "wf")
    ledger.observe_queued("p0", 1)
    ledger.observe_running("p0")
    assert commands.cancel_all_but_running() == {ids[1]: JobState.cancelled}
    assert ledger.job(ids[0]).state is JobState.running


def test_retry_smaller_is_refused_past_the_quota_as_any_new_job(ledger: Ledger) -> None:
    commands = LedgerCommands(ledger, limits=Limits(max_pending_per_requester=1))
    big = {"1.width": 512, "1.height": 512}  # room to shrink
    _batch, (job,) = commands.queue_batch("noise", BatchSpec(requester="ann", overrides=big))
    failed_out_of_memory(ledger, job)
    LedgerCommands(ledger).queue_batch("noise", BatchSpec(requester="ann"), ())  # quota used
    with pytest.raises(QueueBusy, match="ann has 1 unfinished jobs and may have 1"):
        commands.retry_smaller(job)
    assert len(ledger.jobs()) == 2


def test_two_batches_queued_at_once_cannot_both_take_the_last_room(ledger: Ledger) -> None:
    """The check and the write are one transaction: a queueing from another handle that starts
    while one is between its check and its write waits, then finds the room taken."""
    limits = Limits(max_pending_per_requester=2)
    LedgerCommands(ledger, limits=limits).queue_batch("noise", BatchSpec(requester="ann"))
    other: list[str] = []

    def queue_from_another_handle() -> None:
        with Ledger(ledger.folder) as elsewhere:
            try:
                LedgerCommands(elsewhere, limits=limits).queue_batch(
                    "noise", BatchSpec(requester="ann")
                )
                other.append("queued")
            except QueueBusy as exc:
                other.append(exc.reason)

    racer = threading.Thread(target=queue_from_another_handle)

    class Racing(LedgerCommands):
        def room(self) -> Callable[[str, int, int], None]:
            check = super().room()

            def checked_then_raced(requester: str, count: int, priority: int = 0) -> None:
                check(requester, count, priority)  # room for one more: this batch's
                racer.start()
                racer.join(0.5)  # it waits for this transaction (else it is done by now)

            return checked_then_raced

    Racing(ledger, limits=limits).queue_batch("noise", BatchSpec(requester="ann"))
    racer.join()
    assert other == ["requester_quota"]
    assert len(ledger.job_ids()) == 2

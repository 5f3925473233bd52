"""The commands any client gives the controller: ledger verbs, nothing else.

The in-process controller (``Controller``) and a client of a controller running in another
process (``ControllerClient``) give them the same way; the controller acts on them from its
change feed (the in-process one is woken at once as well).
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, TypeVar

from core.backpressure import Limits, room_check
from core.batch import queue_batch, queue_smaller
from core.job_state import CANCELLABLE_STATES, JobState
from core.settings import PAUSED

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from core.batch import BatchSpec
    from core.ledger import BatchRecord, Ledger

_T = TypeVar("_T")

# The event loop a command run by ``in_worker`` reports to, in that worker's thread.
worker = threading.local()


class LedgerCommands:
    """Queue, cancel, retry, pause: each one ledger transaction, then ``acted()``."""

    ledger: Ledger

    def acted(self) -> None:
        """A command changed the ledger (the in-process controller wakes its loops)."""

    def server_count(self) -> int:
        """How many servers work at once (for the wait estimate while no status says)."""
        return 1

    def queue_batch(
        self, preset_name: str, spec: BatchSpec, seed_inputs: Iterable[str] = ()
    ) -> tuple[BatchRecord, list[str]]:
        """Queue the batch, or refuse it whole past the backpressure limits (QueueBusy: the
        composer shows why, the place in line and the wait, before anything is queued)."""
        check = room_check(self.ledger, Limits.load(self.ledger), self.server_count())
        result = queue_batch(
            self.ledger, preset_name, spec, seed_inputs=list(seed_inputs), check=check
        )
        self.acted()
        return result

    async def in_worker(self, command: Callable[[], _T]) -> _T:
        """Run a command (``lambda: controller.cancel_batch(batch)``) on a worker thread, on a
        ledger connection of its own, so the event loop's thread (the window's) stays free
        however many jobs the command changes."""
        loop = asyncio.get_running_loop()

        def work() -> _T:
            worker.loop = loop
            try:
                with self.ledger.thread_connection():
                    return command()
            finally:
                del worker.loop

        return await asyncio.to_thread(work)

    def cancel(self, job_ids: Iterable[str]) -> dict[str, str]:
        """Ask to cancel each job, in one transaction; returns its new state, or why it cannot
        be cancelled."""
        outcome = self.ledger.request_cancel_many(list(job_ids))
        self.acted()
        return {job_id: str(state) for job_id, state in outcome.items()}

    def cancel_batch(self, batch_id: str) -> dict[str, str]:
        return self.cancel(self.ledger.job_ids(batch=batch_id, states=CANCELLABLE_STATES))

    def cancel_all_but_running(self, batch_id: str | None = None) -> dict[str, str]:
        waiting = (JobState.pending, JobState.queued)
        return self.cancel(self.ledger.job_ids(batch=batch_id, states=waiting))

    def retry(self, job_ids: Iterable[str]) -> dict[str, str]:
        """Retry each failed or cancelled job, in one transaction; returns its new state, or
        why it cannot be retried."""
        outcome = self.ledger.retry_many(list(job_ids))
        self.acted()
        return {
            job_id: str(JobState.pending if isinstance(attempt, int) else attempt)
            for job_id, attempt in outcome.items()
        }

    def retry_smaller(
        self, job_id: str, factor: float = 0.75, shrink: Collection[str] | None = None
    ) -> str:
        """A smaller copy of an out-of-memory job (see ``queue_smaller``); its id."""
        new_id = queue_smaller(self.ledger, job_id, factor, shrink)
        self.acted()
        return new_id

    def pause(self) -> None:
        PAUSED.set(self.ledger, True)
        self.acted()

    def resume(self) -> None:
        PAUSED.set(self.ledger, False)
        self.acted()

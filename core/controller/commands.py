"""The commands any client gives: queue, cancel, retry, pause, marks and names, as ledger verbs.

The command line, the HTTP API and the window all give them here, so each door reaches the same
jobs and obeys the same backpressure. The in-process controller (``Controller``) and a client of
a controller running in another process (``ControllerClient``) are this object with their own
``acted`` (the in-process one wakes its loops) and server count; the command line and the API
make a plain one. A controller acts on what changed from its change feed.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import TYPE_CHECKING, TypeVar

from core.batch import queue_batch, queue_smaller
from core.batch.again import again
from core.controller.backpressure import Limits, room_check
from core.job_state import CANCELLABLE_STATES, WAITING_STATES, JobState
from core.ledger.batch_notices import NoticeChoice
from core.ledger.settings import MODELS_ASKED, PAUSED

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable

    from core.batch import BatchSpec
    from core.batch.again import Again
    from core.ledger import BatchRecord, Ledger, Refused
    from core.ledger.marks import Mark

    Cancelled = dict[str, JobState | Refused]
    Retried = dict[str, int | Refused]

_T = TypeVar("_T")

# The event loop a command run by ``in_worker`` reports to, in that worker's thread.
worker = threading.local()


class LedgerCommands:
    """Each command is one ledger transaction, then ``acted()``.

    ``servers`` is how many servers work at once (for backpressure's wait); ``limits`` the
    backpressure limits (None: the ledger's settings, read at each queueing).
    """

    def __init__(self, ledger: Ledger, *, servers: int = 1, limits: Limits | None = None) -> None:
        self.ledger = ledger
        self._servers = servers
        self._limits = limits

    def acted(self) -> None:
        """A command changed the ledger (the in-process controller wakes its loops)."""

    def server_count(self) -> int:
        """How many servers work at once (for the wait estimate while no status says)."""
        return self._servers

    def room(self) -> Callable[[str, int, int], None]:
        """Backpressure's check of new jobs (requester, count, priority), as ``queue_batch``
        takes it."""
        limits = self._limits or Limits.load(self.ledger)
        return room_check(self.ledger, limits, self.server_count())

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

    # --- queue, with backpressure ----------------------------------------------------------------

    def queue_batch(
        self,
        preset_name: str,
        spec: BatchSpec,
        seed_inputs: Iterable[str] = (),
        name: str | None = None,
        notice: NoticeChoice | None = None,
    ) -> tuple[BatchRecord, list[str]]:
        """Queue the batch (called ``name``), or refuse it whole past the backpressure limits
        (QueueBusy: says why, the place in line and the wait, before anything is queued).
        ``notice``: how its end is told (its desktop notification, its webhook), written in
        the same transaction, so no controller sees it end without it."""
        chosen = notice is not None and notice != NoticeChoice()
        with self.ledger.handle.joined() if chosen else contextlib.nullcontext():
            result = queue_batch(
                self.ledger,
                preset_name,
                spec,
                seed_inputs=list(seed_inputs) or None,
                check=self.room(),
                name=name,
            )
            if notice is not None and chosen:
                self.ledger.notices.choose(result[0].id, notice)
        self.acted()
        return result

    def queue_again(self, job_id: str) -> tuple[Again, BatchRecord, str]:
        """Queue job ``job_id`` again with its seed and values, in a batch of its own (see
        ``core.batch.again``): what was asked for, the new batch and its one job."""
        request = again(self.ledger, job_id)
        batch, job_ids = self.queue_batch(request.preset, request.spec, request.seed_inputs)
        return request, batch, job_ids[0]

    def retry_smaller(
        self, job_id: str, factor: float = 0.75, shrink: Collection[str] | None = None
    ) -> str:
        """A smaller copy of an out-of-memory job (see ``queue_smaller``), within the
        backpressure limits as any new job; its id."""
        new_id = queue_smaller(self.ledger, job_id, factor, shrink, check=self.room())
        self.acted()
        return new_id

    # --- cancel ------------------------------------------------------------------------------

    def cancel(self, job_ids: Iterable[str]) -> Cancelled:
        """Ask to cancel each job, in one transaction; returns its new state, or why it cannot
        be cancelled (finished, no such job)."""
        outcome = self.ledger.request_cancel_many(list(job_ids))
        self.acted()
        return outcome

    def cancel_batch(self, batch_id: str) -> Cancelled:
        """Cancel every unfinished job of the batch (UnknownRecord: no such batch)."""
        return self._cancel_in(batch_id, CANCELLABLE_STATES)

    def cancel_all_but_running(self, batch_id: str | None = None) -> Cancelled:
        """Cancel the jobs still waiting (pending, or queued on a server) of the batch, or of
        every batch (None)."""
        return self._cancel_in(batch_id, WAITING_STATES)

    def _cancel_in(self, batch_id: str | None, states: Collection[JobState]) -> Cancelled:
        """The jobs are read and cancelled in one transaction: none moves in between."""
        with self.ledger.handle.joined():
            if batch_id is not None:
                self.ledger.batch(batch_id)
            job_ids = self.ledger.job_ids(batch=batch_id, states=list(states))
            outcome = self.ledger.request_cancel_many(job_ids)
        self.acted()
        return outcome

    # --- retry -------------------------------------------------------------------------------

    def retry(self, job_ids: Iterable[str]) -> Retried:
        """Retry each failed or cancelled job, in one transaction; returns its new attempt's
        number (it is pending at once), or why it cannot be retried."""
        outcome = self.ledger.retry_many(list(job_ids))
        self.acted()
        return outcome

    def retry_failed(self, batch_id: str) -> Retried:
        """Retry the batch's failed jobs (its cancelled ones stay cancelled), read and retried
        in one transaction (UnknownRecord: no such batch)."""
        with self.ledger.handle.joined():
            self.ledger.batch(batch_id)
            outcome = self.ledger.retry_many(
                self.ledger.job_ids(batch=batch_id, states=[JobState.failed])
            )
        self.acted()
        return outcome

    # --- pause and resume --------------------------------------------------------------------

    def pause(self) -> None:
        """Send no new job to ComfyUI until ``resume`` (those sent run on)."""
        PAUSED.set(self.ledger, True)
        self.acted()

    def resume(self) -> None:
        PAUSED.set(self.ledger, False)
        self.acted()

    # --- what the servers can run ----------------------------------------------------------------

    def refresh_models(self) -> None:
        """Have the controller read every server's node classes and model files again (files
        added or removed since it last read them): at its next tick, whichever process it runs
        in (`MODELS_ASKED`)."""
        MODELS_ASKED.set(self.ledger, self.ledger.handle.now())
        self.acted()

    # --- the artist's marks and names --------------------------------------------------------

    def mark(self, job_ids: Iterable[str], mark: Mark | None) -> None:
        """Star or reject each job's pictures (None: clear the mark), in one transaction
        (UnknownRecord: one is no job; nothing is changed)."""
        self.ledger.marks.set(list(job_ids), mark)
        self.acted()

    def name_batch(self, batch_id: str, name: str | None) -> BatchRecord:
        """Give the batch a name (None or blank: none); the batch as renamed."""
        batch = self.ledger.name_batch(batch_id, name)
        self.acted()
        return batch

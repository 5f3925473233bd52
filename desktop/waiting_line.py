"""Who waits ahead of a batch, kept from the change feed: no ledger read, however long the line.

Pending jobs are sent oldest batch first (priorities and requesters' turns aside: the figure is
a place "about" there), so a batch's pending job stands behind every pending job of an older
batch and its own batch's older ones; the jobs already sent are ahead of all of them.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from core.job_state import JobState

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.ledger import JobRecord

_SENT = frozenset({JobState.queued, JobState.running, JobState.cancelling})


class WaitingLine:
    """Pending jobs counted per batch, and the jobs sent and not yet finished, as the feed
    reports them (every job once at start, then each change)."""

    def __init__(self) -> None:
        self._state: dict[str, tuple[str, JobState]] = {}  # job -> (batch, state) if active
        self._pending: Counter[str] = Counter()  # batch -> its pending jobs
        self._first: dict[str, tuple[float, str]] = {}  # batch -> its oldest job's order
        self.sent = 0

    def observe(self, jobs: Iterable[JobRecord]) -> None:
        for job in jobs:
            order = (job.created_at, job.id)
            if job.batch not in self._first or order < self._first[job.batch]:
                self._first[job.batch] = order
            before = self._state.pop(job.id, None)
            if before is not None:
                self._count(before, -1)
            if job.state.is_active:
                self._state[job.id] = (job.batch, job.state)
                self._count((job.batch, job.state), 1)

    def _count(self, where: tuple[str, JobState], n: int) -> None:
        batch, state = where
        if state is JobState.pending:
            self._pending[batch] += n
        elif state in _SENT:
            self.sent += n

    def places(self, batch_jobs: list[JobRecord]) -> dict[str, int]:
        """The places in line (1: the next to be sent) of a batch's pending jobs."""
        pending = sorted(
            (job for job in batch_jobs if job.state is JobState.pending),
            key=lambda job: (job.created_at, job.id),
        )
        if not pending:
            return {}
        batch = pending[0].batch
        mine = self._first.get(batch, (pending[0].created_at, pending[0].id))
        ahead = sum(
            n
            for other, n in self._pending.items()
            if other != batch and n > 0 and self._first[other] < mine
        )
        return {job.id: ahead + n for n, job in enumerate(pending, start=1)}

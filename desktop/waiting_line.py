"""Who waits ahead of a batch, kept from the change feed: no ledger read, however long the line.

Pending jobs are sent higher priority first, then oldest batch first (requesters' turns aside:
the figure is a place "about" there). So a batch's pending job stands behind every pending job
of a higher priority, those of its priority in older batches, and its own batch's older ones of
its priority; the jobs already sent are ahead of all of them.
"""

from __future__ import annotations

from collections import Counter
from itertools import groupby
from typing import TYPE_CHECKING

from core.job_state import JobState

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.ledger import JobRecord

_SENT = frozenset({JobState.queued, JobState.running, JobState.cancelling})
_Group = tuple[int, str]  # (priority, batch): jobs sent one after the other


class WaitingLine:
    """Pending jobs counted per priority and batch, and the jobs sent and not yet finished, as
    the feed reports them (every job once at start, then each change)."""

    def __init__(self) -> None:
        self._state: dict[str, tuple[_Group, JobState]] = {}  # job -> (group, state) if active
        self._pending: Counter[_Group] = Counter()  # its pending jobs
        self._first: dict[_Group, tuple[float, str]] = {}  # its oldest job's order
        self.sent = 0

    def observe(self, jobs: Iterable[JobRecord]) -> None:
        for job in jobs:
            group = (job.priority, job.batch)
            order = (job.created_at, job.id)
            if group not in self._first or order < self._first[group]:
                self._first[group] = order
            before = self._state.pop(job.id, None)
            if before is not None:
                self._count(before, -1)
            if job.state.is_active:
                self._state[job.id] = (group, job.state)
                self._count((group, job.state), 1)

    def _count(self, where: tuple[_Group, JobState], n: int) -> None:
        group, state = where
        if state is JobState.pending:
            self._pending[group] += n
        elif state in _SENT:
            self.sent += n

    def places(self, batch_jobs: list[JobRecord]) -> dict[str, int]:
        """The places in line (1: the next to be sent) of a batch's pending jobs."""
        pending = sorted(
            (job for job in batch_jobs if job.state is JobState.pending),
            key=lambda job: (-job.priority, job.created_at, job.id),
        )
        places: dict[str, int] = {}
        for priority, jobs in groupby(pending, key=lambda job: job.priority):
            mine = list(jobs)
            group = (priority, mine[0].batch)
            order = self._first.get(group, (mine[0].created_at, mine[0].id))
            ahead = sum(
                n
                for other, n in self._pending.items()
                if n > 0 and self._ahead(other, group, order)
            )
            places.update({job.id: ahead + n for n, job in enumerate(mine, start=1)})
        return places

    def _ahead(self, other: _Group, group: _Group, order: tuple[float, str]) -> bool:
        """Whether ``other``'s pending jobs are sent before those of ``group`` (oldest job:
        ``order``)."""
        if other[0] != group[0]:
            return other[0] > group[0]
        return other[1] != group[1] and self._first[other] < order

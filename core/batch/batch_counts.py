"""How many of a batch's jobs stand where, and the words for it: the one reading the tray, the
contact sheet's progress line and the batch notifications share (no Qt).

Each state is counted under its own name, as DESIGN.md's states are: a job being cancelled is
"cancelling", not "running" (the artist asked; ComfyUI has not confirmed), and "waiting" is
pending or queued (sent to ComfyUI or not, it has not started).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.job_state import JobState

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from core.ledger import JobRecord, Ledger


@dataclass(frozen=True)
class BatchCounts:
    """The jobs of one batch (or of the whole ledger) by state."""

    succeeded: int = 0
    failed: int = 0
    cancelled: int = 0
    running: int = 0
    cancelling: int = 0
    waiting: int = 0

    @classmethod
    def of_states(cls, counts: Mapping[JobState, int]) -> BatchCounts:
        return cls(
            succeeded=counts.get(JobState.succeeded, 0),
            failed=counts.get(JobState.failed, 0),
            cancelled=counts.get(JobState.cancelled, 0),
            running=counts.get(JobState.running, 0),
            cancelling=counts.get(JobState.cancelling, 0),
            waiting=counts.get(JobState.pending, 0) + counts.get(JobState.queued, 0),
        )

    @classmethod
    def of_jobs(cls, jobs: Iterable[JobRecord]) -> BatchCounts:
        return cls.of_states(Counter(job.state for job in jobs))

    @classmethod
    def read(cls, ledger: Ledger, batch: str | None = None) -> BatchCounts:
        """From the ledger: one batch's jobs, or every job (one indexed count)."""
        return cls.of_states(ledger.count_by_state(batch=batch))

    @property
    def finished(self) -> int:
        """Ended for good (succeeded, failed or cancelled)."""
        return self.succeeded + self.failed + self.cancelled

    @property
    def active(self) -> int:
        """Not ended: waiting, running or being cancelled."""
        return self.waiting + self.running + self.cancelling

    @property
    def total(self) -> int:
        return self.finished + self.active

    @property
    def over(self) -> bool:
        """Some jobs, all ended."""
        return self.total > 0 and not self.active

    def progress_line(self, seconds_left: float | None) -> str:
        """``12 of 40 done · 1 failed · 1 running · about 2 min left`` (the contact sheet)."""
        parts = [f"{self.succeeded} of {self.total} done"]
        parts += _some(("failed", self.failed), ("cancelled", self.cancelled))
        parts += _some(("running", self.running), ("cancelling", self.cancelling))
        if seconds_left is not None and self.active:
            parts.append(time_left_text(seconds_left))
        return " · ".join(parts)

    def tray_lines(self) -> list[str]:
        """The jobs done of all, running and waiting (and being cancelled), failed."""
        if not self.total:
            return ["No jobs yet"]
        if not self.active:
            lines = [f"All done: {self.succeeded} of {self.total} succeeded"]
        else:
            now = [f"{self.running} running", f"{self.waiting} waiting"]
            now += _some(("cancelling", self.cancelling))
            lines = [f"{self.succeeded} of {self.total} done", ", ".join(now)]
        return lines + _some(("failed", self.failed))


def _some(*counts: tuple[str, int]) -> list[str]:
    """``3 failed`` for each count that is not zero."""
    return [f"{n} {word}" for word, n in counts if n]


def time_left_text(seconds: float) -> str:
    """``about 2 min left``; under half a minute ``less than a minute left``."""
    if seconds < 30:
        return "less than a minute left"
    minutes = max(1, round(seconds / 60))
    if minutes < 90:
        return f"about {minutes} min left"
    return f"about {minutes // 60} h {minutes % 60:02d} min left"

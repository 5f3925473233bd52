"""What each job action would reach, said in its text: "Cancel 21 waiting jobs of batch_…_0004",
or why it is disabled; and when it is large enough to be confirmed first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from core.job_state import CANCELLABLE_STATES, WAITING_STATES, JobState
from core.job_state import can_retry_smaller as job_can_retry_smaller

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.ledger import JobRecord


class Counts(Protocol):
    """How many jobs of a batch (None: of all) are in each of ``states``: the ledger's
    count_by_state (an index search over those jobs alone)."""

    def __call__(
        self, batch: str | None = None, *, states: Sequence[JobState] | None = None
    ) -> dict[JobState, int]: ...


CONFIRM_FROM = 20  # a bulk action reaching this many jobs asks first


@dataclass(frozen=True)
class Scope:
    """An action's text and tooltip for the current selection; ``count`` jobs it would reach
    (0: disabled, the tooltip says why); ``short``: the toolbar's text, when not the text's."""

    text: str
    tip: str
    count: int
    short: str = ""

    @property
    def toolbar_text(self) -> str:
        return self.short or plain_text(self.text)

    @property
    def enabled(self) -> bool:
        return self.count > 0

    @property
    def needs_confirming(self) -> bool:
        return self.count >= CONFIRM_FROM


def short_batch(batch: str) -> str:
    """``batch_20261130_0004`` -> ``batch_…_0004``: the part that tells batches apart."""
    parts = batch.split("_")
    return f"{parts[0]}_…_{parts[-1]}" if len(parts) > 2 else batch


def jobs_text(count: int, kind: str = "") -> str:
    """``1 job``, ``1 waiting job``, ``21 waiting jobs``."""
    noun = "job" if count == 1 else "jobs"
    return " ".join(part for part in (f"{count:,}", kind, noun) if part)


def plain_text(text: str) -> str:
    """A menu text without its mnemonic marker ("&&" stays one literal ampersand)."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _batches(jobs: list[JobRecord]) -> list[str]:
    return sorted({job.batch for job in jobs})


def _of(batches: list[str]) -> str:
    if not batches:
        return "all batches"
    if len(batches) == 1:
        return short_batch(batches[0])
    return f"{len(batches)} batches"


def cancel_scope(jobs: list[JobRecord]) -> Scope:
    count = sum(job.state.can_cancel for job in jobs)
    if count:
        return Scope(f"&Cancel {jobs_text(count, 'selected')}", "", count, f"Cancel ({count:,})")
    why = "None of the selected jobs can be cancelled: finished or already cancelling"
    return Scope("&Cancel", why if jobs else "Select the jobs to cancel", 0)


def retry_scope(jobs: list[JobRecord]) -> Scope:
    count = sum(job.state.can_retry for job in jobs)
    if count:
        return Scope(f"&Retry {jobs_text(count, 'selected')}", "", count, f"Retry ({count:,})")
    why = "None of the selected jobs failed or was cancelled"
    return Scope("&Retry", why if jobs else "Select failed or cancelled jobs to retry", 0)


def retry_smaller_scope(jobs: list[JobRecord]) -> Scope:
    if len(jobs) == 1 and job_can_retry_smaller(jobs[0].state, jobs[0].reason):
        return Scope("Retry &smaller…", "", 1)
    return Scope("Retry &smaller…", "Select one job that failed out of memory", 0)


def cancel_batch_scope(jobs: list[JobRecord], counts: Counts) -> Scope:
    batches = _batches(jobs)
    if not batches:
        return Scope("Cancel &batch", "Select a job of the batch to cancel", 0)
    count = sum(sum(counts(b, states=CANCELLABLE_STATES).values()) for b in batches)
    if not count:
        over = "has" if len(batches) == 1 else "have"
        return Scope("Cancel &batch", f"{_of(batches)} {over} finished: nothing to cancel", 0)
    text = f"Cancel &batch: {jobs_text(count, 'unfinished')} of {_of(batches)}"
    return Scope(text, "", count, f"Cancel batch ({count:,})")


def retry_failed_scope(jobs: list[JobRecord], counts: Counts) -> Scope:
    """The failed jobs of the selected jobs' batches."""
    batches = _batches(jobs)
    if not batches:
        return Scope("Retry &failed of batch", "Select a job of the batch to retry", 0)
    count = sum(sum(counts(b, states=(JobState.failed,)).values()) for b in batches)
    if not count:
        over = "has" if len(batches) == 1 else "have"
        return Scope("Retry &failed of batch", f"{_of(batches)} {over} no failed job", 0)
    text = f"Retry {jobs_text(count, '&failed')} of {_of(batches)}"
    return Scope(text, "", count, f"Retry failed ({count:,})")


def cancel_waiting_scope(jobs: list[JobRecord], counts: Counts) -> Scope:
    """The waiting jobs of the selected job's batch, or of every batch when the selection
    spans several or none."""
    batches = _batches(jobs)
    batch = batches[0] if len(batches) == 1 else None
    count = sum(counts(batch, states=WAITING_STATES).values())
    scope = _of([batch] if batch else [])
    if not count:
        return Scope("Cancel all but &running", f"No job of {scope} is waiting", 0)
    text = f"Cancel {jobs_text(count, '&waiting')} of {scope}"
    return Scope(text, "", count, f"Cancel waiting ({count:,})")

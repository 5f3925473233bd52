"""What a batch's end (or its need of attention) says: its title, its counts in words, and the
JSON a webhook carries. A batch is named as everywhere (core.batch.batch_title)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from core.job_state import JobState

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


class EndState(StrEnum):
    finished = "finished"  # all its jobs ended, some succeeded
    failed = "failed"  # all ended, none succeeded, some failed
    cancelled = "cancelled"  # all ended, all cancelled
    attention = "attention"  # not ended, but nothing moves without the artist


@dataclass(frozen=True)
class Counts:
    """A batch's jobs: ended (by how) and not yet."""

    succeeded: int = 0
    failed: int = 0
    cancelled: int = 0
    active: int = 0

    @classmethod
    def of_states(cls, counts: Mapping[JobState, int]) -> Counts:
        ended = {JobState.succeeded, JobState.failed, JobState.cancelled}
        return cls(
            succeeded=counts.get(JobState.succeeded, 0),
            failed=counts.get(JobState.failed, 0),
            cancelled=counts.get(JobState.cancelled, 0),
            active=sum(n for state, n in counts.items() if state not in ended),
        )

    @property
    def total(self) -> int:
        return self.succeeded + self.failed + self.cancelled + self.active

    @property
    def end(self) -> EndState | None:
        """How the batch ended, or None while some job has not."""
        if self.active or not self.total:
            return None
        if self.succeeded:
            return EndState.finished
        return EndState.failed if self.failed else EndState.cancelled

    def words(self) -> str:
        """``38 done, 2 failed`` (the counts that are not zero; done always)."""
        parts = [f"{self.succeeded} done"]
        parts += [
            f"{n} {word}"
            for word, n in (("failed", self.failed), ("cancelled", self.cancelled))
            if n
        ]
        if self.active:
            parts.append(f"{self.active} waiting")
        return ", ".join(parts)


_HEADINGS = {
    EndState.finished: "Batch finished",
    EndState.failed: "Batch failed",
    EndState.cancelled: "Batch cancelled",
    EndState.attention: "Batch needs attention",
}
_WHY = {"paused": "sending is paused"}


@dataclass(frozen=True)
class BatchNews:
    """One thing to tell of one batch: it ended (how), or it needs attention (why)."""

    batch_id: str
    title: str  # batch_title
    state: EndState
    counts: Counts
    at: float  # when it was seen (wall clock)
    folder: Path | None = None  # where its pictures are
    why: str = ""  # the attention's kind ("paused")

    @property
    def heading(self) -> str:
        """The notification's title: ``Batch finished``."""
        return _HEADINGS[self.state]

    @property
    def text(self) -> str:
        """``Portrait · 40 seeds: 38 done, 2 failed``; with why it needs attention."""
        text = f"{self.title}: {self.counts.words()}"
        if self.why:
            text += f" ({_WHY.get(self.why, self.why)})"
        return text

    def to_json(self) -> dict[str, Any]:
        """The webhook's JSON (its ``json`` template, and what the others are made from)."""
        counts = self.counts
        return {
            "event": "batch.attention" if self.state is EndState.attention else "batch.ended",
            "batch": {"id": self.batch_id, "name": self.title},
            "state": self.state.value,
            "why": self.why or None,
            "counts": {
                "done": counts.succeeded,
                "failed": counts.failed,
                "cancelled": counts.cancelled,
                "waiting": counts.active,
                "total": counts.total,
            },
            "finished_at": datetime.fromtimestamp(self.at, UTC).isoformat(timespec="seconds"),
            "title": self.heading,
            "text": self.text,
            "folder": str(self.folder) if self.folder is not None else None,
            "folder_url": self.folder.absolute().as_uri() if self.folder is not None else None,
        }

"""What a batch's end (or its need of attention) says: its title, its counts in words, and the
JSON a webhook carries. A batch is named as everywhere (core.batch.batch_title)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from core.batch.batch_counts import BatchCounts


class EndState(StrEnum):
    finished = "finished"  # all its jobs ended, some succeeded
    failed = "failed"  # all ended, none succeeded, some failed
    cancelled = "cancelled"  # all ended, all cancelled
    attention = "attention"  # not ended, but nothing moves without the artist


def end_of(counts: BatchCounts) -> EndState | None:
    """How the batch ended, or None while some job has not."""
    if counts.active or not counts.total:
        return None
    if counts.succeeded:
        return EndState.finished
    return EndState.failed if counts.failed else EndState.cancelled


def count_words(counts: BatchCounts) -> str:
    """``38 done, 2 failed`` (the counts that are not zero; done always; those not ended as
    waiting)."""
    parts = [f"{counts.succeeded} done"]
    parts += [
        f"{n} {word}"
        for word, n in (("failed", counts.failed), ("cancelled", counts.cancelled))
        if n
    ]
    if counts.active:
        parts.append(f"{counts.active} waiting")
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
    counts: BatchCounts
    at: float  # when it was seen (wall clock)
    folder: Path | None = None  # where its pictures are
    why: str = ""  # the attention's kind ("paused")

    @property
    def line(self) -> str:
        """Heading and text on one line, as a banner says it: ``Batch finished: Portrait · 40
        seeds: 38 done, 2 failed``."""
        return f"{self.heading}: {self.text}"

    @property
    def heading(self) -> str:
        """The notification's title: ``Batch finished``."""
        return _HEADINGS[self.state]

    @property
    def text(self) -> str:
        """``Portrait · 40 seeds: 38 done, 2 failed``; with why it needs attention."""
        text = f"{self.title}: {count_words(self.counts)}"
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

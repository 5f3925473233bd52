"""`batchline batches`: every batch by its title (the artist's name, else its preset and what
varies: "Portrait · 40 seeds"), its id beside it, how far its jobs are and when it was made."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from cli.common import open_ledger, print_json
from core.batch.batch_title import batch_titles
from core.job_state import JobState

if TYPE_CHECKING:
    import argparse

    from core.ledger import BatchRecord

TITLE_WIDTH = 48  # characters of a title the table shows (--json gives it whole)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "batches",
        help="list the batches: title, id, jobs done, when made",
        description="Every batch, oldest first, by its title: its name, else its preset and "
        "what it varies. Two with one title are told apart by #2, #3.",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=list_batches)


def list_batches(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        batches = ledger.batches()
        titles = batch_titles(ledger, batches)
        counts = {batch.id: ledger.count_by_state(batch.id) for batch in batches}
    if args.json:
        print_json([_json(batch, titles[batch.id], counts[batch.id]) for batch in batches])
        return 0
    rows = [("TITLE", "BATCH", "JOBS", "MADE")]
    rows += [
        (_cut(titles[b.id]), b.id, jobs_text(counts[b.id]), _made(b.created_at)) for b in batches
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)] + [0]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    if not batches:
        print("no batches yet: `batchline queue PRESET` makes one")
    return 0


def jobs_text(counts: dict[JobState, int]) -> str:
    """ "38/40 done, 2 failed": the jobs that succeeded of all, then those that did not."""
    total = sum(counts.values())
    parts = [f"{counts.get(JobState.succeeded, 0):,}/{total:,} done"]
    for state in (JobState.failed, JobState.cancelled):
        if counts.get(state):
            parts.append(f"{counts[state]:,} {state.value}")
    return ", ".join(parts)


def _json(batch: BatchRecord, title: str, counts: dict[JobState, int]) -> dict[str, Any]:
    return {
        "id": batch.id,
        "title": title,
        "name": batch.name,
        "preset": batch.preset,
        "requester": batch.requester,
        "created_at": batch.created_at,
        "jobs": {state.value: counts.get(state, 0) for state in JobState},
    }


def _cut(title: str) -> str:
    return title if len(title) <= TITLE_WIDTH else title[: TITLE_WIDTH - 1] + "…"


def _made(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")

"""The one order a batch's jobs are shown in: the contact sheet lays its cells out in it and the
viewer steps through it, so Left/Right in the viewer walk the sheet's cells as they read.

A plain batch is in seed order: the order its seeds were composed in (start, start + 1, ...;
a list as typed; random seeds as drawn), which is also the order its jobs are sent in, so the
pending cells' places in line read 1, 2, 3 along the sheet. A "Retry smaller" copy
(`grid_pages.retried_jobs`) comes right after the job it retried. A grid batch is read as the
sheet shows it: page by page, each page row by row, left to right; the jobs on no cell (an
original whose retry took its cell) come last. No Qt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.errors import InputError
from core.pictures.grid_pages import read_grid, retried_jobs
from core.pictures.pictures import batch_pictures

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from core.ledger import JobRecord, Ledger
    from core.pictures.grid_pages import Grid
    from core.pictures.pictures import Picture


def job_order(
    jobs: Sequence[JobRecord], retried: Mapping[str, str], grid: Grid | None = None
) -> list[str]:
    """The batch's job ids in the sheet's order. ``jobs`` in job order (as the ledger lists a
    batch's), ``retried`` each retry's original (retry id -> original id), ``grid`` the
    batch's grid when it has one."""
    later: dict[str, list[str]] = {}
    firsts: list[str] = []
    for job in jobs:
        original = retried.get(job.id)
        if original is None:
            firsts.append(job.id)
        else:
            later.setdefault(original, []).append(job.id)
    plain = [job_id for first in firsts for job_id in (first, *later.get(first, []))]
    if grid is None:
        return plain
    shown = [
        cell.job.id
        for sheet in grid.sheets
        for _place, cell in sorted(sheet.cells.items(), key=lambda item: (item[0][1], item[0][0]))
    ]
    on_grid = set(shown)
    return shown + [job_id for job_id in plain if job_id not in on_grid]


def retries(jobs: Sequence[JobRecord], queued_at: float) -> dict[str, str]:
    """Each "Retry smaller" copy in the batch with the job it retried (retry id -> original)."""
    return {job_id: original.id for job_id, original in retried_jobs(jobs, queued_at).items()}


def batch_grid(ledger: Ledger, batch_id: str) -> Grid | None:
    """The batch's grid, None when it has none."""
    try:
        grid = read_grid(ledger, batch_id)
    except InputError:
        return None
    return grid if grid.axes else None


def batch_order(ledger: Ledger, batch_id: str) -> list[str]:
    """The batch's job ids in the sheet's order, read from the ledger."""
    jobs = ledger.jobs(batch=batch_id)
    queued_at = ledger.batch(batch_id).created_at
    return job_order(jobs, retries(jobs, queued_at), batch_grid(ledger, batch_id))


def sheet_pictures(ledger: Ledger, batch_id: str, output_dir: Path | None = None) -> list[Picture]:
    """The batch's existing pictures in the sheet's order (the viewer's steps)."""
    return batch_pictures(ledger, batch_id, output_dir, batch_order(ledger, batch_id))

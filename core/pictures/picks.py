"""The pictures an artist marked in a batch: the starred ones copied to a folder of their
choice, the rejected ones listed (to go to the trash)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.job_state import JobState
from core.ledger.marks import Mark
from core.pictures.picture_parameters import export_picture
from core.pictures.pictures import Picture, recorded_outputs

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import Ledger


def marked(
    ledger: Ledger, batch_id: str, mark: Mark, output_dir: Path | None = None
) -> list[Picture]:
    """The pictures of the batch's succeeded jobs marked ``mark`` that exist, each with its job,
    in job order (relative ones under ``output_dir``)."""
    marks = ledger.marks.in_batch(batch_id)
    jobs = [job for job in ledger.jobs(batch=batch_id) if marks.get(job.id) == mark]
    attempts = ledger.attempts_of([job.id for job in jobs])
    return [
        Picture(job.id, path)
        for job in jobs
        if job.state == JobState.succeeded
        for path in recorded_outputs(attempts.get(job.id, []), output_dir)
        if path.is_file()
    ]


def marked_pictures(ledger: Ledger, batch_id: str, mark: Mark = Mark.star) -> list[Path]:
    """The pictures of the batch's succeeded jobs marked ``mark``, in job order, that exist."""
    return [picture.path for picture in marked(ledger, batch_id, mark)]


def export_marked(
    ledger: Ledger,
    batch_id: str,
    folder: Path,
    mark: Mark = Mark.star,
    *,
    sidecar: bool = False,
) -> list[Path]:
    """Copy the batch's pictures marked ``mark`` into ``folder`` under their own names, never
    over another file (a taken name gets -2, -3 ...; the same picture again is not copied
    twice); the copies' paths. Each PNG copy carries its A1111 ``parameters`` text beside
    ComfyUI's chunks, its pixels untouched; with ``sidecar``, a ``<stem>.json`` of the same
    values is written beside each copy (`core.pictures.picture_parameters`)."""
    folder.mkdir(parents=True, exist_ok=True)
    return [
        export_picture(ledger, picture, folder, sidecar=sidecar)[0]
        for picture in marked(ledger, batch_id, mark)
    ]

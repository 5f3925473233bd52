"""A batch's pictures as the viewer steps through them: each job's output files, in job order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.ledger import AttemptRecord, Ledger


@dataclass(frozen=True)
class Picture:
    """One output file of a job."""

    job_id: str
    path: Path


def recorded_outputs(
    attempts: Sequence[AttemptRecord], output_dir: Path | None = None
) -> list[Path]:
    """The output files the job's latest attempt with outputs recorded (an older attempt's when
    it succeeded late and superseded the newer one), relative ones under ``output_dir``,
    whether or not they still exist."""
    with_outputs = [attempt for attempt in attempts if attempt.outputs]
    paths = [Path(p) for p in with_outputs[-1].outputs] if with_outputs else []
    if output_dir is not None:
        paths = [p if p.is_absolute() else output_dir / p for p in paths]
    return paths


def job_outputs(ledger: Ledger, job_id: str, output_dir: Path | None = None) -> list[str]:
    """The job's recorded output files that still exist (a picture moved to the trash does
    not)."""
    return [str(p) for p in recorded_outputs(ledger.attempts(job_id), output_dir) if p.is_file()]


def batch_pictures(
    ledger: Ledger,
    batch_id: str,
    output_dir: Path | None = None,
    order: Sequence[str] | None = None,
) -> list[Picture]:
    """The batch's existing pictures in job order (the order the batch was composed in: seeds,
    then grid values), or in ``order`` (job ids: the sheet's, `sheet_order.sheet_pictures`), a
    job's several outputs one after another; jobs without any are skipped."""
    jobs = list(order) if order is not None else [job.id for job in ledger.jobs(batch=batch_id)]
    attempts = ledger.attempts_of(jobs)
    return [
        Picture(job_id, path)
        for job_id in jobs
        for path in recorded_outputs(attempts.get(job_id, []), output_dir)
        if path.is_file()
    ]

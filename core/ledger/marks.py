"""The artist's marks on jobs: a star for the pictures to keep, a reject for the others."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from core.errors import UnknownRecord
from core.ledger import schema

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.ledger.handle import LedgerHandle


class Mark(StrEnum):
    star = "star"
    reject = "reject"


class MarkStore:
    """Marks by job id; a job has at most one."""

    def __init__(self, handle: LedgerHandle) -> None:
        self._handle = handle

    def set(self, job_ids: Sequence[str], mark: Mark | None) -> None:
        """Mark each job (None: clear its mark), in one transaction.

        Raises:
            UnknownRecord: one of them is not a job of this ledger (nothing is changed).
        """
        now = self._handle.now()
        with self._handle.tx():
            known = {
                row.id for row in schema.Job.select(schema.Job.id).where(schema.Job.id.in_(job_ids))
            }
            unknown = [job for job in job_ids if job not in known]
            if unknown:
                raise UnknownRecord(f"no job {unknown[0]!r}")
            schema.Mark.delete().where(schema.Mark.job.in_(job_ids)).execute()
            if mark is not None:
                rows = [{"job": job, "mark": mark.value, "at": now} for job in job_ids]
                schema.Mark.insert_many(rows).execute()

    def of(self, job_ids: Sequence[str]) -> dict[str, Mark]:
        """The marks of those of ``job_ids`` that have one."""
        with self._handle.read():
            query = schema.Mark.select().where(schema.Mark.job.in_(job_ids))
            return {row.job_id: Mark(row.mark) for row in query}

    def in_batch(self, batch_id: str) -> dict[str, Mark]:
        """The marks of the batch's jobs that have one."""
        with self._handle.read():
            query = (
                schema.Mark.select(schema.Mark.job, schema.Mark.mark)
                .join(schema.Job)
                .where(schema.Job.batch == batch_id)
            )
            return {row.job_id: Mark(row.mark) for row in query}

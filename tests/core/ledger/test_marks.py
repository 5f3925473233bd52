"""Marks on jobs (star, reject): set, cleared, read by batch, kept across a reopen."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import UnknownRecord
from core.ledger import Ledger
from core.ledger.marks import Mark
from tests.core.marked_jobs import jobs


def test_marks_are_set_cleared_and_survive_a_reopen(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        batch, ids = jobs(ledger, 4)
        ledger.marks.set(ids[:2], Mark.star)
        ledger.marks.set([ids[1], ids[2]], Mark.reject)  # a job has one mark: the latest
        ledger.marks.set([ids[0]], None)
        with pytest.raises(UnknownRecord, match="no job 'job_19990101_0001'"):
            ledger.marks.set([ids[3], "job_19990101_0001"], Mark.star)
    with Ledger(tmp_path) as reopened:
        assert reopened.marks.in_batch(batch) == {ids[1]: Mark.reject, ids[2]: Mark.reject}
        assert reopened.marks.of([ids[0], ids[2]]) == {ids[2]: Mark.reject}

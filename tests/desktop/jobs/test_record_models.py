"""Tests for desktop.jobs.record_models: a job's attempts and transitions as Qt models."""

from __future__ import annotations

from core.job_state import Reason
from tests.core.helpers import fail_job
from tests.desktop.conftest import make_jobs


def test_record_models_pass_the_tester(qtmodeltester, ledger, preset_name) -> None:
    from desktop.jobs.record_models import ATTEMPT_COLUMNS, TRANSITION_COLUMNS, RecordTableModel

    job_id = make_jobs(ledger, preset_name, 1)[0]
    fail_job(ledger, job_id, Reason.execution_error)
    attempts = RecordTableModel(ATTEMPT_COLUMNS)
    transitions = RecordTableModel(TRANSITION_COLUMNS)
    qtmodeltester.check(attempts)
    qtmodeltester.check(transitions)
    attempts.set_records(ledger.attempts(job_id))
    transitions.set_records(ledger.transitions(job_id))
    assert attempts.columnCount() == len(ATTEMPT_COLUMNS)
    assert transitions.rowCount() == 3

"""Bulk reads: many jobs' attempts and transitions in a few queries, the same as one by one."""

from __future__ import annotations

import json

import pytest

from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from core.ledger.attempt_error import AttemptError
from tests.core.ledger.conftest import make_jobs
from tests.core.ledger.test_attempt_error import OLD_SHAPES


def test_attempts_and_transitions_of_many_jobs_match_the_one_by_one_reads(
    ledger: Ledger,
) -> None:
    ids = make_jobs(ledger, 1203)  # three IN (...) chunks of 500
    touched = [ids[0], ids[499], ids[500], ids[1202]]
    for n, job_id in enumerate(touched):
        prompt = f"prompt-{n}"
        ledger.submit_attempt(job_id, prompt, "http://127.0.0.1:9", "hash")
        ledger.observe_queued(prompt, n)
        ledger.observe_retryable(prompt, AttemptResult.lost, Reason.server_lost)
    attempts, transitions = ledger.attempts_of(ids), ledger.transitions_of(ids)
    assert set(attempts) == set(touched)
    for job_id in ids:
        assert attempts.get(job_id, []) == ledger.attempts(job_id)
        assert transitions.get(job_id, []) == ledger.transitions(job_id)
    assert [len(attempts[j]) for j in touched] == [1, 1, 1, 1]
    states = [t.to_state for t in transitions[ids[500]]]
    assert states == [JobState.queued, JobState.pending]  # lost, then back in line


def test_jobs_read_as_records_equal_the_feed(ledger: Ledger) -> None:
    ids = make_jobs(ledger, 7)
    feed, _ = ledger.changes_since(0)
    assert [job.id for job in ledger.jobs()] == ids
    assert ledger.jobs() == sorted(feed, key=lambda job: ids.index(job.id))
    assert ledger.job(ids[3]) == ledger.jobs()[3]


@pytest.mark.parametrize(("stored", "reason", "expected"), OLD_SHAPES)
def test_an_error_an_older_version_stored_is_read_typed(
    ledger: Ledger, stored: object, reason: str | None, expected: AttemptError
) -> None:
    (job_id,) = make_jobs(ledger, 1)
    ledger.submit_attempt(job_id, "old", "http://127.0.0.1:9", "hash")
    ledger.handle.database.execute_sql(  # as that version wrote the row
        "UPDATE attempt SET result = 'failed', reason = ?, error_json = ? WHERE prompt_id = 'old'",
        (reason, json.dumps(stored)),
    )
    assert ledger.attempt("old").error == expected  # type: ignore[union-attr]
    assert ledger.attempts_of([job_id])[job_id][0].error == expected

"""Cancel and retry of many jobs: one transaction each, a right outcome per job."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from core.errors import IllegalTransition, UnknownRecord
from core.job_state import JobState, Reason
from core.ledger import Ledger, Refused
from tests.core.helpers import succeed
from tests.core.ledger.conftest import make_jobs, traced


@contextmanager
def transactions(ledger: Ledger) -> Iterator[list[str]]:
    """The write transactions ledger begins meanwhile (SQLite's own statement trace)."""
    begun: list[str] = []
    connection = ledger.handle.database.connection()
    connection.set_trace_callback(
        lambda sql: begun.append(sql) if sql.startswith("BEGIN IMMEDIATE") else None
    )
    try:
        yield begun
    finally:
        connection.set_trace_callback(None)


def _every_state(ledger: Ledger) -> dict[str, str]:
    """One job in each state a cancel meets, by name."""
    ids = make_jobs(ledger, 7)
    names = ["pending", "sending", "queued", "running", "cancelling", "succeeded", "failed"]
    jobs = dict(zip(names, ids, strict=True))
    for name in names[1:]:
        ledger.submit_attempt(jobs[name], f"p-{name}", "http://x", "wf")
    for name in names[2:]:
        ledger.observe_queued(f"p-{name}", 1)
    for name in names[3:]:
        ledger.observe_running(f"p-{name}")
    ledger.request_cancel(jobs["cancelling"])
    succeed(ledger, "p-succeeded", [])
    ledger.observe_failed("p-failed", Reason.execution_error)
    return jobs


def test_cancel_many_answers_for_each_job_in_one_transaction(ledger: Ledger) -> None:
    jobs = _every_state(ledger)
    before = {job.id: job for job in ledger.jobs()}
    with transactions(ledger) as begun:
        outcome = ledger.request_cancel_many([*jobs.values(), "job_nope"])
    assert len(begun) == 1
    states = {name: outcome[job_id] for name, job_id in jobs.items()}
    assert states == {
        "pending": JobState.cancelled,  # never sent: cancelled at once
        "sending": JobState.cancelling,  # may reach ComfyUI: withdrawn there first
        "queued": JobState.cancelling,
        "running": JobState.cancelling,
        "cancelling": JobState.cancelling,
        "succeeded": states["succeeded"],
        "failed": states["failed"],
    }
    for name in ("succeeded", "failed"):
        refusal = states[name]
        assert isinstance(refusal, Refused)
        assert isinstance(refusal.error, IllegalTransition)
        assert str(refusal) == f"refused: job {jobs[name]} already {name}: nothing to cancel"
    unknown = outcome["job_nope"]
    assert isinstance(unknown, Refused)
    assert isinstance(unknown.error, UnknownRecord)

    after = {job.id: job for job in ledger.jobs()}
    moved = ("pending", "sending", "queued", "running")
    seqs = {after[jobs[name]].seq for name in moved}
    assert len(seqs) == len(moved)
    assert min(seqs) > max(job.seq for job in before.values())
    for name in moved:
        last = ledger.transitions(jobs[name])[-1]
        assert (last.from_state, last.to_state) == (before[jobs[name]].state, states[name])
    assert after[jobs["pending"]].reason == Reason.cancelled
    assert after[jobs["pending"]].finished_at is not None
    for name in ("cancelling", "succeeded", "failed"):
        assert after[jobs[name]] == before[jobs[name]], f"{name} must be left as it was"


def test_cancel_many_is_all_or_nothing(ledger: Ledger) -> None:
    ids = make_jobs(ledger, 50)
    ledger.handle.database.execute_sql(
        "CREATE TRIGGER fail_late BEFORE INSERT ON transition "
        f"WHEN NEW.job_id = '{ids[40]}' BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    )
    with pytest.raises(sqlite3.IntegrityError, match="disk full"):
        ledger.request_cancel_many(ids)
    assert {job.state for job in ledger.jobs()} == {JobState.pending}
    assert ledger.transitions_of(ids) == {}


def test_retry_many_opens_the_next_attempts_in_one_transaction(ledger: Ledger) -> None:
    jobs = _every_state(ledger)
    ledger.request_cancel_many([jobs["pending"], jobs["queued"]])
    ledger.observe_cancelled("p-queued")
    wanted = ["failed", "pending", "queued", "running", "succeeded"]  # failed, cancelled x2, ...
    with transactions(ledger) as begun:
        outcome = ledger.retry_many([jobs[name] for name in wanted])
    assert len(begun) == 1
    assert [outcome[jobs[name]] for name in ("failed", "pending", "queued")] == [2, 2, 2]
    for name in ("running", "succeeded"):
        refusal = outcome[jobs[name]]
        assert isinstance(refusal, Refused)
        assert "only failed or cancelled jobs can be retried" in str(refusal)
    for name in ("failed", "pending", "queued"):
        job = ledger.job(jobs[name])
        assert (job.state, job.attempt, job.auto_attempts, job.reason) == (
            JobState.pending,
            2,
            1,
            None,
        )
        last = ledger.transitions(jobs[name])[-1]
        assert (last.to_state, last.attempt, last.cause) == (
            JobState.pending,
            1,
            "manual retry as attempt 2",
        )
    assert ledger.job(jobs["running"]).state == JobState.running


def test_a_thousand_jobs_cost_a_few_statements(ledger: Ledger) -> None:
    ids = make_jobs(ledger, 1000)
    with traced(ledger) as statements:
        ledger.request_cancel_many(ids)
    selects = [sql for sql in statements if sql.lstrip().startswith("SELECT")]
    assert len(selects) <= 3, "jobs are read in one query, not one per job"
    assert {job.state for job in ledger.jobs()} == {JobState.cancelled}
    assert len(ledger.transitions_of(ids)) == 1000


def test_job_ids_follow_the_filters_without_reading_jobs(ledger: Ledger) -> None:
    first = make_jobs(ledger, 3)
    second = make_jobs(ledger, 2)
    ledger.request_cancel(first[1])
    batch = ledger.job(first[0]).batch
    assert ledger.job_ids() == first + second
    assert ledger.job_ids(batch=batch, states=[JobState.pending]) == [first[0], first[2]]
    assert ledger.job_ids(among=[second[1], "job_nope", first[0]]) == [first[0], second[1]]

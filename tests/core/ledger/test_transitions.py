"""Every verb against every state: what the ledger accepts, ignores and refuses; cancel and retry
of many jobs in one transaction each, a right outcome per job."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import count

import pytest

from core.errors import IllegalTransition, UnknownRecord
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger, Refused
from core.ledger.attempt_error import AttemptError, ErrorKind
from core.ledger.text_limits import MAX_ITEMS, MAX_TEXT
from tests.core.helpers import server_refs, succeed, succeed_late
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


_ids = count()


def _pid() -> str:
    return f"prompt-{next(_ids)}"


def _submitted(ledger: Ledger) -> tuple[str, str]:
    job = make_jobs(ledger, 1)[0]
    pid = _pid()
    ledger.submit_attempt(job, pid, "http://127.0.0.1:8188", "wf")
    return job, pid


# Each setup returns (job id, prompt id of its current attempt or a prompt id nobody knows).
def _fresh(ledger: Ledger) -> tuple[str, str]:
    return make_jobs(ledger, 1)[0], "unknown-prompt"


def _queued(ledger: Ledger) -> tuple[str, str]:
    job, pid = _submitted(ledger)
    assert ledger.observe_queued(pid, 1)
    return job, pid


def _running(ledger: Ledger) -> tuple[str, str]:
    job, pid = _queued(ledger)
    assert ledger.observe_running(pid)
    return job, pid


def _cancelling(ledger: Ledger) -> tuple[str, str]:
    job, pid = _queued(ledger)
    assert ledger.request_cancel(job) == JobState.cancelling
    return job, pid


def _fetching(ledger: Ledger) -> tuple[str, str]:
    """It succeeded on the server; its pictures are still to be fetched."""
    job, pid = _running(ledger)
    assert ledger.observe_succeeded(pid, server_refs(["/out/a.png"]))
    return job, pid


def _succeeded(ledger: Ledger) -> tuple[str, str]:
    job, pid = _running(ledger)
    assert succeed(ledger, pid, ["/out/a.png"])
    return job, pid


def _failed(ledger: Ledger) -> tuple[str, str]:
    job, pid = _running(ledger)
    assert ledger.observe_failed(pid, Reason.oom, AttemptError(ErrorKind.oom, node_id="3"))
    return job, pid


def _cancelled(ledger: Ledger) -> tuple[str, str]:
    job, pid = _cancelling(ledger)
    assert ledger.observe_cancelled(pid)
    return job, pid


SETUPS: dict[str, Callable[[Ledger], tuple[str, str]]] = {
    "pending": _fresh,
    "submitting": _submitted,
    "queued": _queued,
    "running": _running,
    "cancelling": _cancelling,
    "fetching": _fetching,
    "succeeded": _succeeded,
    "failed": _failed,
    "cancelled": _cancelled,
}


VERBS: dict[str, Callable[[Ledger, str, str], object]] = {
    "queued": lambda lg, job, pid: lg.observe_queued(pid, 7),
    "running": lambda lg, job, pid: lg.observe_running(pid),
    "succeeded": lambda lg, job, pid: lg.observe_succeeded(pid, []),
    "fetched": lambda lg, job, pid: lg.observe_fetched(pid, ["/out/a.png"]),
    "failed": lambda lg, job, pid: lg.observe_failed(pid, Reason.execution_error),
    "cancelled": lambda lg, job, pid: lg.observe_cancelled(pid, Reason.removed_elsewhere),
    "lost": lambda lg, job, pid: lg.observe_retryable(pid, AttemptResult.lost, Reason.server_lost),
    "cancel": lambda lg, job, pid: lg.request_cancel(job),
    "retry": lambda lg, job, pid: lg.retry(job),
    "submit": lambda lg, job, pid: lg.submit_attempt(job, _pid(), "http://x", "wf"),
}


# (state, verb) -> the job's state afterwards, "ignored" (an observation that writes nothing), or
# "refused" (a command that raises IllegalTransition).
# "unchanged": a command that is already satisfied (cancel while cancelling) writes nothing either.
IGNORED, REFUSED, UNCHANGED = "ignored", "refused", "unchanged"


EXPECTED: dict[str, dict[str, str]] = {
    "pending": {
        "queued": IGNORED,
        "running": IGNORED,
        "succeeded": IGNORED,
        "failed": IGNORED,
        "cancelled": IGNORED,
        "lost": IGNORED,
        "cancel": "cancelled",
        "retry": REFUSED,
        "fetched": IGNORED,
        "submit": "pending",
    },
    "submitting": {
        "queued": "queued",
        "running": "running",
        "succeeded": "running",
        "failed": "failed",
        "cancelled": "cancelled",
        "lost": "pending",
        "cancel": "cancelling",
        "retry": REFUSED,
        "fetched": IGNORED,
        "submit": REFUSED,
    },
    "queued": {
        "queued": IGNORED,
        "running": "running",
        "succeeded": "running",
        "failed": "failed",
        "cancelled": "cancelled",
        "lost": "pending",
        "cancel": "cancelling",
        "retry": REFUSED,
        "fetched": IGNORED,
        "submit": REFUSED,
    },
    "running": {
        "queued": IGNORED,
        "running": IGNORED,
        "succeeded": "running",
        "failed": "failed",
        "cancelled": "cancelled",
        "lost": "pending",
        "cancel": "cancelling",
        "retry": REFUSED,
        "fetched": IGNORED,
        "submit": REFUSED,
    },
    "cancelling": {
        "queued": IGNORED,
        "running": "cancelling",
        "succeeded": "cancelling",
        "failed": "failed",
        "cancelled": "cancelled",
        "lost": "cancelled",
        "cancel": UNCHANGED,
        "retry": REFUSED,
        "fetched": IGNORED,
        "submit": REFUSED,
    },
    "fetching": {
        "queued": IGNORED,
        "running": IGNORED,
        "succeeded": IGNORED,
        "failed": IGNORED,
        "cancelled": IGNORED,
        "lost": IGNORED,
        "cancel": "cancelling",
        "retry": REFUSED,
        "fetched": "succeeded",
        "submit": REFUSED,
    },
    "succeeded": {
        "queued": IGNORED,
        "running": IGNORED,
        "succeeded": IGNORED,
        "failed": IGNORED,
        "cancelled": IGNORED,
        "lost": IGNORED,
        "cancel": REFUSED,
        "retry": REFUSED,
        "fetched": IGNORED,
        "submit": REFUSED,
    },
    "failed": {
        "queued": IGNORED,
        "running": IGNORED,
        "succeeded": IGNORED,
        "failed": IGNORED,
        "cancelled": IGNORED,
        "lost": IGNORED,
        "cancel": REFUSED,
        "retry": "pending",
        "fetched": IGNORED,
        "submit": REFUSED,
    },
    "cancelled": {
        "queued": IGNORED,
        "running": IGNORED,
        "succeeded": IGNORED,
        "failed": IGNORED,
        "cancelled": IGNORED,
        "lost": IGNORED,
        "cancel": REFUSED,
        "retry": "pending",
        "fetched": IGNORED,
        "submit": REFUSED,
    },
}


CASES = [(state, verb) for state in SETUPS for verb in VERBS]


@pytest.mark.parametrize(("state", "verb"), CASES)
def test_verb_in_state(ledger: Ledger, state: str, verb: str) -> None:
    job, pid = SETUPS[state](ledger)
    before = ledger.job(job)
    history = ledger.transitions(job)
    expected = EXPECTED[state][verb]
    if expected == REFUSED:
        with pytest.raises(IllegalTransition):
            VERBS[verb](ledger, job, pid)
        assert ledger.job(job) == before
        return
    outcome = VERBS[verb](ledger, job, pid)
    after = ledger.job(job)
    if expected in (IGNORED, UNCHANGED):
        assert outcome is False or expected == UNCHANGED
        assert after == before, "an ignored observation must write nothing"
        assert ledger.transitions(job) == history
        return
    assert after.state == JobState(expected)
    assert after.seq > before.seq, "every accepted change moves the job in the change feed"
    moved = after.state != before.state or after.attempt != before.attempt
    assert len(ledger.transitions(job)) == len(history) + (1 if moved else 0)


def test_transition_rows_tell_the_story(ledger: Ledger) -> None:
    job, pid = _running(ledger)
    succeed(ledger, pid, ["/out/x.png"])
    story = [(t.from_state, t.to_state, t.attempt) for t in ledger.transitions(job)]
    assert story == [
        (JobState.pending, JobState.queued, 1),
        (JobState.queued, JobState.running, 1),
        (JobState.running, JobState.succeeded, 1),
    ]
    attempt = ledger.attempts(job)[0]
    assert attempt.result == AttemptResult.succeeded
    assert attempt.outputs == ["/out/x.png"]
    assert attempt.queued_at is not None
    assert attempt.started_at is not None
    assert attempt.finished_at is not None


def test_news_about_an_older_attempt_is_ignored(ledger: Ledger) -> None:
    job, old = _running(ledger)
    assert ledger.observe_retryable(old, AttemptResult.lost, Reason.server_lost)
    new = "prompt-new"
    ledger.submit_attempt(job, new, "http://x", "wf")
    before = ledger.job(job)
    assert succeed(ledger, old, []) is False
    assert ledger.observe_running(old) is False
    assert ledger.job(job) == before
    assert ledger.observe_queued(new, 3)
    assert ledger.job(job).state == JobState.queued


def test_a_refused_submission_has_written_nothing(ledger: Ledger) -> None:
    cancelled, sent, waiting = make_jobs(ledger, 3)
    ledger.request_cancel(cancelled)
    ledger.submit_attempt(sent, "p-sent", "http://x", "wf")
    before = ledger.latest_seq(), [ledger.job(job) for job in (cancelled, sent)]
    with ledger.handle.joined():  # as a burst of submissions is written
        for job in (cancelled, sent):
            with pytest.raises(IllegalTransition):
                ledger.submit_attempt(job, f"p-{job}-again", "http://x", "wf")
        ledger.submit_attempt(waiting, "p-waiting", "http://x", "wf")
    assert [ledger.job(job) for job in (cancelled, sent)] == before[1]
    assert [len(ledger.attempts(job)) for job in (cancelled, sent, waiting)] == [0, 1, 1]
    assert ledger.latest_seq() == before[0] + 1, "one feed position: the waiting job's"


def test_automatic_attempts_stop_at_the_limit(ledger: Ledger) -> None:
    job = make_jobs(ledger, 1)[0]
    for n in (1, 2, 3):
        pid = f"p{n}"
        ledger.submit_attempt(job, pid, "http://x", "wf")
        assert ledger.job(job).attempt == n
        assert ledger.observe_retryable(pid, AttemptResult.lost, Reason.server_lost)
    final = ledger.job(job)
    assert final.state == JobState.failed
    assert final.reason == Reason.server_lost
    assert [a.result for a in ledger.attempts(job)] == [AttemptResult.lost] * 3
    assert "gave up after 3 attempts" in ledger.transitions(job)[-1].cause


def test_manual_retry_opens_the_next_attempt_and_a_fresh_budget(ledger: Ledger) -> None:
    job, _ = _failed(ledger)
    retried = ledger.retry(job)
    assert (retried.state, retried.attempt, retried.auto_attempts) == (JobState.pending, 2, 1)
    assert retried.reason is None
    ledger.submit_attempt(job, "second", "http://x", "wf")
    assert ledger.observe_retryable("second", AttemptResult.failed, Reason.connection_error)
    assert ledger.job(job).attempt == 3
    last = ledger.transitions(job)[-1]
    assert (last.from_state, last.to_state, last.attempt) == (JobState.pending, JobState.pending, 2)


def test_cancel_of_a_finished_job_names_its_state(ledger: Ledger) -> None:
    job, _ = _succeeded(ledger)
    with pytest.raises(IllegalTransition, match="already succeeded"):
        ledger.request_cancel(job)


def test_success_while_cancelling_says_the_cancel_was_too_late(ledger: Ledger) -> None:
    job, pid = _cancelling(ledger)
    ledger.observe_running(pid)
    assert succeed(ledger, pid, [])
    assert ledger.transitions(job)[-1].cause == "finished before the cancel landed"


def test_stalled_flag_is_visible_and_not_a_state(ledger: Ledger) -> None:
    job, pid = _running(ledger)
    assert ledger.set_stalled(pid, True)
    assert ledger.set_stalled(pid, True) is False
    assert ledger.attempts(job)[0].stalled
    assert ledger.job(job).state == JobState.running


def test_the_job_carries_its_current_attempt_run_times(ledger: Ledger) -> None:
    job, pid = _running(ledger)
    assert ledger.job(job).started_at is not None
    assert ledger.job(job).finished_at is None
    succeed(ledger, pid, [], times=(1000.0, 1012.5))
    done = ledger.job(job)
    assert (done.started_at, done.finished_at) == (1000.0, 1012.5)


def test_a_submitted_attempt_is_returned_as_written(ledger: Ledger) -> None:
    job = make_jobs(ledger, 1)[0]
    with traced(ledger) as statements:
        made = ledger.submit_attempt(job, "p-written", "http://127.0.0.1:8188", "wf")
    assert made == ledger.attempt("p-written")
    assert (made.result, made.outputs, made.stalled) == (AttemptResult.submitting, [], False)
    # No RETURNING clause: SQLite has it only from 3.35, and no minimum version is required.
    assert not any("RETURNING" in statement.upper() for statement in statements)


def test_a_new_attempt_clears_the_run_times(ledger: Ledger) -> None:
    job, pid = _running(ledger)
    ledger.observe_retryable(pid, AttemptResult.lost, Reason.server_lost)
    again = ledger.job(job)
    assert (again.started_at, again.finished_at) == (None, None)


def _given_up(ledger: Ledger) -> tuple[str, str]:
    """A job whose attempt 1 got no answer and was given up as lost: attempt 2 is pending."""
    job, old = _submitted(ledger)
    unanswered = AttemptError(ErrorKind.unknown_outcome, "no answer in time")
    assert ledger.note_unknown_outcome(old, Reason.timeout, unanswered)
    assert ledger.attempt(old).error == unanswered
    assert ledger.observe_retryable(old, AttemptResult.lost, Reason.timeout)
    assert ledger.unsettled_attempts([Reason.timeout.value])[0].prompt_id == old
    return job, old


def test_a_late_success_supersedes_the_newer_attempt(ledger: Ledger) -> None:
    job, old = _given_up(ledger)
    new = _pid()
    ledger.submit_attempt(job, new, "http://127.0.0.1:8188", "wf")
    assert ledger.observe_queued(new, 2)

    assert succeed_late(ledger, old, ["/out/late.png"], times=(10.0, 12.0))
    first, second = ledger.attempts(job)
    assert (first.result, first.outputs, first.finished_at) == (
        AttemptResult.succeeded,
        ["/out/late.png"],
        12.0,
    )
    assert (second.result, second.reason) == (AttemptResult.cancelled, Reason.superseded)
    assert second.error == AttemptError(
        ErrorKind.superseded, "attempt 1, answered late, succeeded first"
    )
    assert ledger.job(job).state == JobState.succeeded
    causes = [t.cause for t in ledger.transitions(job)]
    assert "answered late, succeeded first; attempt 2 withdrawn" in causes[-2]
    assert causes[-1] == "attempt 1, answered late, succeeded first"
    assert ledger.unsettled_attempts([Reason.timeout.value]) == []
    assert not ledger.observe_queued(new)  # the withdrawn attempt takes no news
    assert not succeed_late(ledger, old, [])  # once only


def test_a_late_success_after_the_job_ended_changes_nothing(ledger: Ledger) -> None:
    job, old = _given_up(ledger)
    new = _pid()
    ledger.submit_attempt(job, new, "http://127.0.0.1:8188", "wf")
    assert succeed(ledger, new, ["/out/new.png"])
    assert not succeed_late(ledger, old, ["/out/late.png"])
    assert [a.result for a in ledger.attempts(job)] == [
        AttemptResult.lost,
        AttemptResult.succeeded,
    ]


def test_only_a_submitting_attempt_notes_an_unknown_outcome(ledger: Ledger) -> None:
    _, pid = _queued(ledger)
    late = AttemptError(ErrorKind.unknown_outcome, "late")
    assert not ledger.note_unknown_outcome(pid, Reason.timeout, late)
    assert ledger.attempt(pid).reason is None


def test_server_text_is_stored_within_limits(ledger: Ledger) -> None:
    huge = "x" * 2_000_000  # a server's 2 MB exception message
    _, pid = _running(ledger)
    error = AttemptError(
        ErrorKind.execution, huge, node_type=huge, node_errors=(huge,) * 1000, traceback=huge
    )
    assert ledger.observe_failed(pid, Reason.execution_error, error)
    stored = ledger.attempt(pid).error
    assert stored is not None
    assert len(json.dumps(stored.to_json())) < 1_000_000
    assert stored.message.endswith(f"… [{2_000_000 - MAX_TEXT} more characters]")
    assert stored.traceback == stored.node_type == stored.message
    assert stored.node_errors[-1] == f"… {1000 - MAX_ITEMS} more"
    job, queued = _queued(ledger)
    assert succeed(ledger, queued, [], note=huge)
    assert len(ledger.transitions(job)[-1].cause) < MAX_TEXT + 100

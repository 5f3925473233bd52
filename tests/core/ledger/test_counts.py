"""Counting jobs (unfinished ones, some states of a batch or of all): read from an index alone,
never by reading every job."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.job_state import JobState, Reason
from core.ledger import NewJob
from tests.core.helpers import succeed
from tests.core.ledger.conftest import make_jobs, traced

if TYPE_CHECKING:
    from core.ledger import Ledger


def test_pending_queued_running_and_cancelling_count_finished_ones_do_not(ledger: Ledger) -> None:
    alice = make_jobs(ledger, 6)
    make_jobs(ledger, 2, requester="bob")
    for n, job_id in enumerate(alice[:5]):
        ledger.submit_attempt(job_id, f"p{n}", "http://x", "wf")
        ledger.observe_queued(f"p{n}", n)
    ledger.observe_running("p1")
    ledger.request_cancel(alice[2])  # cancelling: still unfinished
    succeed(ledger, "p3", [])
    ledger.observe_failed("p4", Reason.oom)
    assert ledger.unfinished_count("alice") == 4
    assert ledger.unfinished_count("bob") == 2
    assert ledger.unfinished_count() == 6
    assert ledger.unfinished_count("nobody") == 0


def test_some_states_are_counted_per_batch_or_for_all(ledger: Ledger) -> None:
    first, second = make_jobs(ledger, 3), make_jobs(ledger, 2)
    ledger.request_cancel(first[0])
    waiting = (JobState.pending, JobState.queued)
    batch = ledger.job(first[0]).batch
    assert ledger.count_by_state(batch, states=waiting) == {JobState.pending: 2}
    assert ledger.count_by_state(states=waiting) == {JobState.pending: 4}
    assert ledger.count_by_state(ledger.job(second[0]).batch) == {JobState.pending: 2}


def test_the_waiting_jobs_are_each_requesters_line_in_admission_order(ledger: Ledger) -> None:
    def batch(count: int, priority: int, requester: str = "alice") -> list[str]:
        jobs = [NewJob({"1.color": i}) for i in range(count)]
        return ledger.create_batch("demo", jobs, requester=requester, priority=priority)[1]

    normal, low, urgent, bob = batch(3, 0), batch(2, -1), batch(2, 5), batch(1, 0, "bob")
    ledger.submit_attempt(normal[0], "p-sent", "http://x", "wf")  # being sent: not waiting
    ledger.request_cancel(urgent[0])  # finished
    assert ledger.waiting_jobs() == [
        *((job, "alice", 5) for job in urgent[1:]),
        *((job, "alice", 0) for job in normal[1:]),
        *((job, "alice", -1) for job in low),
        (bob[0], "bob", 0),
    ]


def test_the_counts_search_the_index_instead_of_reading_every_job(ledger: Ledger) -> None:
    """They run on the GUI thread with each status or change: finished jobs must cost nothing."""
    with traced(ledger) as statements:
        ledger.unfinished_count("alice")
        ledger.unfinished_count()
        ledger.count_by_state(states=(JobState.pending, JobState.queued))
    connection = ledger.handle.database.connection()
    counts = [sql for sql in statements if "COUNT" in sql.upper()]
    assert len(counts) == 3
    for sql in counts:
        plan = " ".join(str(row[-1]) for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "USING COVERING INDEX" in plan, plan
        assert "SCAN" not in plan, plan

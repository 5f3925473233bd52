"""How many jobs are unfinished, of one requester or all: read from the state index alone."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.job_state import Reason
from tests.core.ledger.conftest import make_jobs

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
    ledger.observe_succeeded("p3", [])
    ledger.observe_failed("p4", Reason.oom)
    assert ledger.unfinished_count("alice") == 4
    assert ledger.unfinished_count("bob") == 2
    assert ledger.unfinished_count() == 6
    assert ledger.unfinished_count("nobody") == 0


def test_the_count_searches_the_index_instead_of_reading_every_job(ledger: Ledger) -> None:
    """It runs on the GUI thread with each status: finished jobs must cost nothing."""
    connection = ledger.handle.database.connection()
    statements: list[str] = []
    connection.set_trace_callback(statements.append)
    try:
        ledger.unfinished_count("alice")
        ledger.unfinished_count()
    finally:
        connection.set_trace_callback(None)
    counts = [sql for sql in statements if "COUNT" in sql.upper()]
    assert len(counts) == 2
    for sql in counts:
        plan = " ".join(str(row[-1]) for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "USING COVERING INDEX" in plan, plan
        assert "SCAN" not in plan, plan

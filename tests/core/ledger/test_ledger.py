"""The ledger's reads and ids: many jobs' attempts and transitions in a few queries (the same as
one by one), counts and filters from an index alone, ids that never collide across processes, a
process killed mid-transaction leaving nothing half written, and the change feed another
process's writes reach."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger, NewJob
from core.ledger.attempt_error import AttemptError
from tests.core.helpers import succeed
from tests.core.ledger.conftest import make_jobs, spawn, traced, wait_for_line
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


def test_job_ids_follow_the_filters_without_reading_jobs(ledger: Ledger) -> None:
    first = make_jobs(ledger, 3)
    second = make_jobs(ledger, 2)
    ledger.request_cancel(first[1])
    batch = ledger.job(first[0]).batch
    assert ledger.job_ids() == first + second
    assert ledger.job_ids(batch=batch, states=[JobState.pending]) == [first[0], first[2]]
    assert ledger.job_ids(among=[second[1], "job_nope", first[0]]) == [first[0], second[1]]


def test_ids_from_two_processes_at_once_never_collide(ledger: Ledger) -> None:
    script = """
        ledger = Ledger(home)
        for _ in range(25):
            ledger.create_batch("demo", [NewJob({"1.color": i}) for i in range(4)],
                                requester=sys.argv[2])
        print("done", flush=True)
        """
    with spawn(script, ledger.folder, "a") as first, spawn(script, ledger.folder, "b") as second:
        for child in (first, second):
            wait_for_line(child, "done")
            assert child.wait() == 0
    jobs = ledger.jobs()
    ids = [job.id for job in jobs]
    assert len(ids) == 200 == len(set(ids))
    counters = sorted(int(job_id.rsplit("_", 1)[1]) for job_id in ids)
    assert counters == list(range(1, 201))
    assert len({batch.id for batch in ledger.batches()}) == 50
    seqs = [job.seq for job in jobs]
    assert len(set(seqs)) == 200, "every job has its own change-feed position"


def test_process_killed_mid_transaction_leaves_nothing_half_written(ledger: Ledger) -> None:
    make_jobs(ledger, 3)
    with spawn(
        """
        import core.ledger.ledger as module
        original = module.Ledger._insert_jobs
        def slow_insert(self, *args, **kwargs):
            ids = original(self, *args, **kwargs)
            print("inserted", flush=True)   # rows written, transaction not committed
            time.sleep(60)
            return ids
        module.Ledger._insert_jobs = slow_insert
        ledger = Ledger(home)
        ledger.create_batch("demo", [NewJob({"1.color": i}) for i in range(2000)],
                            requester="crash")
        """,
        ledger.folder,
    ) as child:
        wait_for_line(child, "inserted")
        os.kill(child.pid, signal.SIGKILL)
    with Ledger(ledger.folder) as reopened:
        assert len(reopened.jobs()) == 3
        assert len(reopened.batches()) == 1
        assert reopened.count_by_state() == {JobState.pending: 3}
        # The ledger keeps working: ids continue without reusing the lost transaction's.
        make_jobs(reopened, 1)
        assert len(reopened.jobs()) == 4


def test_change_feed_sees_another_process_writes(ledger: Ledger) -> None:
    seen, position = ledger.changes_since(0)
    assert seen == []
    with spawn(
        """
        ledger = Ledger(home)
        _, ids = ledger.create_batch("demo", [NewJob({"1.color": 1}), NewJob({"1.color": 2})],
                                     requester="cli")
        ledger.request_cancel(ids[1])
        print("written", flush=True)
        """,
        ledger.folder,
    ) as writer:
        wait_for_line(writer, "written")
        assert writer.wait() == 0
    changed, position = ledger.changes_since(position)
    assert [(job.requester, job.state) for job in changed] == [
        ("cli", JobState.pending),
        ("cli", JobState.cancelled),
    ]
    assert ledger.changes_since(position) == ([], position)


def test_change_feed_pages_through_large_changes(ledger: Ledger) -> None:
    make_jobs(ledger, 25)
    first, position = ledger.changes_since(0, limit=10)
    second, position = ledger.changes_since(position, limit=10)
    third, position = ledger.changes_since(position, limit=10)
    assert [len(page) for page in (first, second, third)] == [10, 10, 5]
    assert position == ledger.latest_seq()


def test_two_ledgers_used_from_two_threads_keep_to_their_own_files(tmp_path: Path) -> None:
    """Each thread's ledger uses its own database, however the threads interleave."""
    import threading

    from core.ledger import NewJob, PresetContent
    from tests.core.ledger.conftest import WORKFLOW

    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            with Ledger(tmp_path / name) as own:
                own.presets.add(name, PresetContent(f"hash-{name}", WORKFLOW))
                for i in range(60):
                    own.create_batch(name, [NewJob({"1.color": i})], requester=name)
                    assert {job.requester for job in own.jobs()} == {name}
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(name,)) for name in ("left", "right")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    for name in ("left", "right"):
        with Ledger(tmp_path / name) as ledger:
            assert len(ledger.jobs()) == 60
            assert ledger.presets.names() == [name]


def test_admission_queries_on_a_large_backlog(ledger: Ledger) -> None:
    """Lines, in-flight counts and activity on 20,000 pending jobs of two requesters."""
    from core.ledger import NewJob

    ledger.create_batch("demo", [NewJob({"1.color": i}) for i in range(20_000)], requester="a")
    _, bob = ledger.create_batch(
        "demo",
        [NewJob({"1.color": i}, priority=5 if i == 2 else 0) for i in range(3)],
        requester="b",
    )
    ledger.submit_attempt(bob[0], "sending", "http://x", "wf")
    lines = ledger.pending_lines(2)
    assert list(lines) == ["a", "b"]
    assert len(lines["a"]) == 2
    assert lines["b"] == [bob[2], bob[1]], "priority first, the job being sent skipped"
    assert ledger.in_flight_by_requester() == {"b": 1}
    ledger.submit_attempt(bob[1], "sent", "http://y", "wf")
    ledger.observe_queued("sent", 1)
    assert ledger.in_flight_by_requester() == {"b": 2}
    assert ledger.in_flight_by_requester("http://x") == {"b": 1}, "per server"
    assert ledger.in_flight_by_requester("http://y") == {"b": 1}
    assert ledger.in_flight_by_requester("http://z") == {}
    assert ledger.in_flight_by_requester(left=["sent"]) == {"b": 1}, "gone from the queue"
    assert ledger.in_flight_by_requester(left=["sending"]) == {"b": 2}, "its answer may come"
    assert ledger.has_active_jobs()


def test_a_pending_line_is_read_by_pages_with_the_values_placement_reads(ledger: Ledger) -> None:
    ids = make_jobs(ledger, 5)
    first, rest = ledger.pending_line("alice", 2), ledger.pending_line("alice", 10, skip=2)
    assert [job.id for job in first + rest] == ids
    assert json.loads(first[0].params_json) == {"1.color": 0}
    assert ledger.requesters_waiting() == ["alice"]


def test_the_job_last_sent_to_a_server_is_what_it_has_loaded(ledger: Ledger) -> None:
    one, two = make_jobs(ledger, 2)
    assert ledger.last_job_sent_to("http://a") is None
    ledger.submit_attempt(two, "p2", "http://a", "h")
    ledger.submit_attempt(one, "p1", "http://b", "h")
    found = ledger.last_job_sent_to("http://a")
    assert found is not None
    assert found.id == two

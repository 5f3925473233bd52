"""The ledger shared by several processes: lease, id allocation, crashes, the change feed."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.errors import LeaseTakenError
from core.job_state import JobState
from core.ledger import Ledger
from core.ledger.schema import SCHEMA_VERSION
from core.paths import ledger_path
from tests.core.ledger.conftest import make_jobs, make_schema_1_ledger

OPENERS = 6

PRELUDE = """
import sys, time
from pathlib import Path
from core.ledger import Ledger, NewJob, PresetContent
home = Path(sys.argv[1])
"""


def _spawn(script: str, home: Path, *args: str) -> subprocess.Popen[str]:
    code = PRELUDE + textwrap.dedent(script)
    return subprocess.Popen(
        [sys.executable, "-c", code, str(home), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_line(proc: subprocess.Popen[str], expected: str) -> None:
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    assert line == expected, (
        f"child said {line!r}; stderr: {proc.stderr.read() if proc.stderr else ''}"
    )


def test_lease_is_exclusive_across_processes(ledger: Ledger) -> None:
    with _spawn(
        """
        ledger = Ledger(home)
        ledger.lease.acquire()
        print("held", flush=True)
        time.sleep(60)
        """,
        ledger.folder,
    ) as holder:
        _wait_for_line(holder, "held")
        with pytest.raises(LeaseTakenError, match=f"pid {holder.pid}") as caught:
            ledger.lease.acquire()
        assert "another Batchline controller is running" in str(caught.value)
        assert not ledger.lease.held
        holder.kill()
    ledger.lease.acquire()  # the OS released the dead holder's lock
    assert ledger.lease.held


def test_second_lease_in_the_same_process_is_refused_too(ledger: Ledger) -> None:
    ledger.lease.acquire()
    with Ledger(ledger.folder) as other, pytest.raises(LeaseTakenError, match=str(os.getpid())):
        other.lease.acquire()
    ledger.lease.release()


def test_ids_from_two_processes_at_once_never_collide(ledger: Ledger) -> None:
    script = """
        ledger = Ledger(home)
        for _ in range(25):
            ledger.create_batch("demo", [NewJob({"1.color": i}) for i in range(4)],
                                requester=sys.argv[2])
        print("done", flush=True)
        """
    with _spawn(script, ledger.folder, "a") as first, _spawn(script, ledger.folder, "b") as second:
        for child in (first, second):
            _wait_for_line(child, "done")
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
    with _spawn(
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
        _wait_for_line(child, "inserted")
        os.kill(child.pid, signal.SIGKILL)
    with Ledger(ledger.folder) as reopened:
        assert len(reopened.jobs()) == 3
        assert len(reopened.batches()) == 1
        assert reopened.count_by_state() == {JobState.pending: 3}
        # The ledger keeps working: ids continue without reusing the lost transaction's.
        make_jobs(reopened, 1)
        assert len(reopened.jobs()) == 4


@pytest.mark.parametrize("schema", ["old", "new"])
def test_processes_opening_a_ledger_at_once_all_open_it(tmp_path: Path, schema: str) -> None:
    """One process creates or migrates the ledger; the others wait for it, then open it."""
    home = tmp_path / "home"
    ids = make_schema_1_ledger(home, 3) if schema == "old" else []
    script = """
        print("ready", flush=True)
        sys.stdin.readline()
        with Ledger(home) as ledger:
            print(len(ledger.jobs()), flush=True)
        """
    children = [_spawn(script, home) for _ in range(OPENERS)]
    try:
        for child in children:
            _wait_for_line(child, "ready")
        for child in children:
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        outcomes = [child.communicate(timeout=60) for child in children]
    finally:
        for child in children:
            child.kill()
    assert [err for _, err in outcomes] == [""] * OPENERS
    assert [out.strip() for out, _ in outcomes] == [str(len(ids))] * OPENERS
    with Ledger(home) as ledger:
        assert [job.id for job in ledger.jobs()] == ids
    conn = sqlite3.connect(ledger_path(home))
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()


def test_change_feed_sees_another_process_writes(ledger: Ledger) -> None:
    seen, position = ledger.changes_since(0)
    assert seen == []
    with _spawn(
        """
        ledger = Ledger(home)
        _, ids = ledger.create_batch("demo", [NewJob({"1.color": 1}), NewJob({"1.color": 2})],
                                     requester="cli")
        ledger.request_cancel(ids[1])
        print("written", flush=True)
        """,
        ledger.folder,
    ) as writer:
        _wait_for_line(writer, "written")
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


def test_a_starting_controller_waits_out_a_brief_holder(ledger: Ledger) -> None:
    with _spawn(
        """
        ledger = Ledger(home)
        ledger.lease.acquire()
        print("held", flush=True)
        time.sleep(0.4)
        ledger.lease.release()
        time.sleep(60)
        """,
        ledger.folder,
    ) as holder:
        _wait_for_line(holder, "held")
        with pytest.raises(LeaseTakenError):
            ledger.lease.acquire()  # no waiting: refused at once
        ledger.lease.acquire(wait_s=10)
        assert ledger.lease.held
        holder.kill()


def test_a_second_ledger_in_one_process_keeps_the_first_ones_locks(ledger: Ledger) -> None:
    """Opening a ledger again in a process that already has it open (the app's window and its
    controller, a worker thread) must not drop the first connection's file locks: POSIX drops
    every lock a process holds on a file when it closes any descriptor of that file. With the
    locks gone, another process closing the ledger deletes its WAL under the live connection."""
    home, first = ledger.folder, ledger
    make_jobs(first, 1)
    with Ledger(home):  # the same ledger again, in the same process
        pass
    script = (
        f"from pathlib import Path\nfrom core.ledger import Ledger\nLedger(Path({str(home)!r}))"
    )
    other = subprocess.run(
        [sys.executable, "-c", script + ".close()"],
        cwd=Path(__file__).resolve().parents[3],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert other.returncode == 0, other.stderr
    assert ledger_path(home).with_name(ledger_path(home).name + "-wal").exists()
    make_jobs(first, 1)  # the first connection still works
    assert len(first.jobs()) == 2

"""The controller lease: exclusive across processes and within one, a starting controller waits
out a brief holder, a second ledger in one process keeps the first one's locks, and asking
whether a controller runs never keeps the lease."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core.errors import LeaseTakenError, LedgerError
from core.ledger import Ledger
from core.paths import ledger_path
from tests.core.ledger.conftest import make_jobs, spawn, wait_for_line


def test_lease_is_exclusive_across_processes(ledger: Ledger) -> None:
    with spawn(
        """
        ledger = Ledger(home)
        ledger.lease.acquire()
        print("held", flush=True)
        time.sleep(60)
        """,
        ledger.folder,
    ) as holder:
        wait_for_line(holder, "held")
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


def test_a_starting_controller_waits_out_a_brief_holder(ledger: Ledger) -> None:
    with spawn(
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
        wait_for_line(holder, "held")
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


def test_check_free_lets_go_at_once_and_names_the_holder(ledger: Ledger) -> None:
    ledger.lease.check_free()
    assert not ledger.lease.held
    with Ledger(ledger.folder) as controller:
        controller.lease.acquire()  # no wait: nothing of the check was kept
        with pytest.raises(LeaseTakenError, match=f"pid {os.getpid()}"):
            ledger.lease.check_free()
        assert controller.lease.held
    ledger.lease.check_free()  # free again once the controller let go


def test_taken_says_whether_a_controller_holds_the_lease(ledger: Ledger) -> None:
    assert not ledger.lease.taken()
    with Ledger(ledger.folder) as controller:
        controller.lease.acquire()
        assert ledger.lease.taken()
        assert not ledger.lease.held, "asking took nothing"
    assert not ledger.lease.taken()


def test_a_lock_file_that_cannot_be_opened_is_one_ledger_error(ledger: Ledger) -> None:
    """The data folder deleted under a window: asking is one error naming the lock file."""
    shutil.rmtree(ledger.folder)
    with pytest.raises(LedgerError, match=f"cannot open {ledger.lease.path}: No such file"):
        ledger.lease.taken()

"""`batchline serve`: the long-running controller of a data folder."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.controller.published import APP, TERMINAL, Published, read_published
from core.job_state import JobState
from core.ledger import Ledger
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli, batchline

_T = TypeVar("_T")
HANG_S = 30.0  # bounds the wait for a process that, broken, would never end: not its speed


def test_serve_says_ready_works_refuses_a_second_and_stops_on_sigterm(
    cli: Cli, home: Path, noise: str, sim_thread: SimulatorThread
) -> None:
    ids = cli("queue", "noise", "--count", "2").out.split()
    server = batchline(home, "--server", sim_thread.url, "serve", "--poll-interval", "0.05")
    try:
        assert server.stdout is not None
        ready = server.stdout.readline()
        assert ready == f"ready: pid {server.pid}, ledger {home}\n"

        second = batchline(home, "--server", sim_thread.url, "serve")
        out, err = second.communicate(timeout=60)
        assert (second.returncode, out) == (1, "")
        assert err == f"batchline: another Batchline controller is running, pid {server.pid}\n"

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the jobs queued before it started are done
            with Ledger(home) as ledger:
                if all(ledger.job(job).state == JobState.succeeded for job in ids):
                    break
            time.sleep(0.1)
        else:
            raise AssertionError("the served jobs did not finish")
    finally:
        server.send_signal(signal.SIGTERM)
        _out, err = server.communicate(timeout=60)
    assert server.returncode == 0, err
    assert "stopped; prompts already sent keep running in ComfyUI" in err
    assert "Traceback" not in err
    with Ledger(home) as ledger:
        ledger.lease.acquire()  # let go by the stopped controller


def test_serve_publishes_its_status_and_stops_when_asked_through_the_ledger(
    home: Path, sim_thread: SimulatorThread
) -> None:
    """A client sees the controller's connection and pid in the ledger alone, and a stop request
    written there ends the process cleanly (its row then says it stopped); ignored, the process
    would run on past the bound on the wait for it."""
    from core.controller.status import Connection

    server = batchline(home, "--server", sim_thread.url, "serve", "--poll-interval", "0.05")
    try:
        assert server.stdout is not None
        server.stdout.readline()
        with Ledger(home) as ledger:
            published = _wait_for(lambda: _connected(ledger), "the connected status")
            assert (published.pid, published.origin) == (server.pid, TERMINAL)
            assert published.status.server == sim_thread.url
            assert ledger.controller_runs.request_stop(published.run_id)
            _out, err = server.communicate(timeout=HANG_S)
            final = read_published(ledger)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 0, err
    assert "stopping: asked to through the ledger" in err
    assert final is not None
    assert final.stopped
    assert final.status.connection == Connection.connected


def test_serve_demo_runs_the_demo_ledger_on_its_own_simulator(cli: Cli, home: Path) -> None:
    """`serve --demo` never touches the artist's ledger: the samples and jobs are the demo's."""
    server = batchline(home, "serve", "--demo", "--demo-job-seconds", "0.05", "--started-by", "app")
    try:
        assert server.stdout is not None
        assert server.stdout.readline() == f"ready: pid {server.pid}, ledger {home / 'demo'}\n"
        with Ledger(home / "demo") as demo:
            name = demo.presets.names()[0]
            batch, _ids = queue_batch(demo, name, BatchSpec(seeds=SeedPlan(count=2)))
            _wait_for(
                lambda: demo.count_by_state(batch.id).get(JobState.succeeded) == 2 or None,
                "the demo jobs",
            )
            published = read_published(demo)
            assert published is not None
            assert published.origin == APP
            assert published.status.server.startswith("http://127.0.0.1:")
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=60)
    with Ledger(home) as ledger:
        assert ledger.latest_seq() == 0
        assert ledger.controller_runs.current() is None


def _connected(ledger: Ledger) -> Published | None:
    from core.controller.status import Connection

    published = read_published(ledger)
    if published and published.status.connection == Connection.connected:
        return published
    return None


def _wait_for(probe: Callable[[], _T | None], what: str, timeout: float = 30.0) -> _T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_serve_stops_with_one_line_when_its_data_folder_is_deleted(
    cli: Cli, home: Path, noise: str, sim_thread: SimulatorThread
) -> None:
    """The ledger file gone (its folder deleted under a running controller) ends the process,
    saying so once, instead of working on for ever on a file nobody can reach (the wait for it
    is bounded)."""
    import shutil

    cli("queue", "noise", "--count", "20")
    server = batchline(home, "--server", sim_thread.url, "serve", "--poll-interval", "0.05")
    try:
        assert server.stdout is not None
        server.stdout.readline()
        with Ledger(home) as ledger:
            _wait_for(lambda: _connected(ledger), "the connected status")
        shutil.rmtree(home)
        _out, err = server.communicate(timeout=HANG_S)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 1, err
    assert "Traceback" not in err
    gone = [line for line in err.splitlines() if "is gone" in line]
    assert gone == [
        f"batchline: the ledger {home / 'ledger.sqlite3'} is gone (deleted or moved away): "
        "nothing more is written to it"
    ]


def test_serve_stops_with_one_line_when_its_ledger_is_replaced(
    cli: Cli, home: Path, noise: str, sim_thread: SimulatorThread, tmp_path: Path
) -> None:
    """A backup restored with ``mv`` under a running serve: it stops, saying so once, and the
    restored file is left as it came: whole, holding what it held."""
    import hashlib
    import os
    import sqlite3
    from contextlib import closing

    cli("queue", "noise", "--count", "20")
    path, backup = home / "ledger.sqlite3", tmp_path / "backup.sqlite3"
    with closing(sqlite3.connect(path)) as source, closing(sqlite3.connect(backup)) as copy:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode = DELETE")
    digest = hashlib.sha256(backup.read_bytes()).hexdigest()
    server = batchline(home, "--server", sim_thread.url, "serve", "--poll-interval", "0.05")
    try:
        assert server.stdout is not None
        server.stdout.readline()
        with Ledger(home) as ledger:
            _wait_for(lambda: ledger.count_by_state().get(JobState.succeeded), "a finished job")
        os.replace(backup, path)
        _out, err = server.communicate(timeout=HANG_S)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 1, err
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if "replaced" in line] == [
        f"batchline: the ledger {path} was replaced by another file (a backup restored, a file "
        "sync?): nothing more is written to either; start Batchline again to use the file now "
        "there"
    ]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    with closing(sqlite3.connect(path)) as restored:
        assert restored.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        states = restored.execute("SELECT DISTINCT state FROM job").fetchall()
    assert states == [("pending",)]

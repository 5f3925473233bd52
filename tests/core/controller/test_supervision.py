"""The controller never dies quietly: loops restart after local errors, which are never blamed on
ComfyUI; errors it cannot survive stop it visibly (a full ledger; the ledger file replaced or
removed under it stops it with one line naming the file, before any further write, the file at
the path left exactly as it came); stopping waits for every task."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from core.comfy import ComfyClient
from core.controller import Connection, Controller, ControllerStatus
from core.errors import LedgerError, LedgerFileChanged, LedgerWriteError
from core.job_state import JobState
from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import FAST, NOISE_WORKFLOW, wait_for

pytestmark = pytest.mark.asyncio


def record_statuses(controller: Controller) -> list[ControllerStatus]:
    seen: list[ControllerStatus] = []
    controller.add_status_listener(seen.append)
    return seen


def attempts_written(ledger: Ledger, ids: list[str]) -> int:
    return sum(len(ledger.attempts(job_id)) for job_id in ids)


async def test_a_locked_ledger_stops_no_loop_for_good(
    tmp_path: Path, simulator: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A "database is locked" in the work loop: shown, retried, the jobs sent once it ends."""
    monkeypatch.setattr("core.ledger.database.BUSY_TIMEOUT_S", 0.2)
    with Ledger(tmp_path / "locked") as ledger:
        client = ComfyClient(simulator.url)
        ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
        ids = queue(ledger, 2)
        controller = Controller(ledger, client, config=FAST, output_dir=tmp_path / "out")
        seen = record_statuses(controller)
        other = sqlite3.connect(ledger.path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            await controller.start()
            await wait_for(lambda: "database is locked" in controller.status.local_error)
            loops = (f"work on {simulator.url}", "changes from other processes")
            assert controller.status.local_error.startswith(loops)  # the loop it stopped
            assert str(ledger.path) in controller.status.local_error
        finally:
            other.rollback()
            other.close()
        try:
            await wait_for(lambda: ledger.job(ids[1]).state == JobState.succeeded)
            assert ledger.job(ids[0]).state == JobState.succeeded
            await wait_for(lambda: controller.status.local_error == "")
            controller.check_alive()
        finally:
            await controller.stop()
            await client.aclose()
    assert all(status.connection is not Connection.offline for status in seen)
    assert all(status.last_error == "" for status in seen), "not the server's fault"


async def test_a_bug_in_a_tick_is_reported_as_local_and_retried(
    ledger: Ledger,
    simulator: Simulator,
    make_controller: MakeController,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ids = queue(ledger, 2)
    failures = 3
    live_attempts = ledger.live_attempts

    def broken_three_times() -> object:  # fault injection: a bug in our own code
        nonlocal failures
        if failures:
            failures -= 1
            raise RuntimeError("boom")
        return live_attempts()

    monkeypatch.setattr(ledger, "live_attempts", broken_three_times)
    caplog.set_level(logging.INFO, "core.controller")
    controller = await make_controller(ledger, simulator)
    seen = record_statuses(controller)
    await wait_for(lambda: all(ledger.job(job_id).state.is_terminal for job_id in ids))
    assert [ledger.job(job_id).state for job_id in ids] == [JobState.succeeded] * 2
    local = {status.local_error for status in seen} - {""}
    assert local == {f"work on {simulator.url}: RuntimeError: boom"}
    assert controller.status.local_error == ""
    assert all(status.connection is not Connection.offline for status in seen)
    assert not any("unreachable" in record.getMessage() for record in caplog.records)
    logged = [r for r in caplog.records if "boom" in r.getMessage() and r.exc_info]
    assert len(logged) == 1, "logged once, with its traceback"


async def test_a_full_ledger_stops_the_controller_and_nothing_unrecorded_is_sent(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    ids = queue(ledger, 60)
    database = ledger.handle.database
    pages = database.execute_sql("PRAGMA page_count").fetchone()[0]
    database.execute_sql(f"PRAGMA max_page_count = {pages}")  # the disk is full from now on
    controller = await make_controller(ledger, simulator, global_cap=60, per_requester_cap=60)
    await wait_for(lambda: controller.status.stopped != "")
    with pytest.raises(LedgerWriteError) as stopped:
        controller.check_alive()
    message = str(stopped.value)
    assert f"cannot write the ledger {ledger.path} (database or disk is full)" in message
    assert controller.status.stopped == message
    await asyncio.sleep(0.5)  # nothing more happens
    sent = simulator.stats()["queue_counter"]
    assert sent == attempts_written(ledger, ids), "every prompt sent was written first"
    assert sent < len(ids)
    assert ledger.job(ids[-1]).state == JobState.pending


@pytest.mark.expect_log("core.controller.controller", "ERROR")
@pytest.mark.expect_log("core.controller.controller")
async def test_stop_keeps_the_lease_until_every_task_has_ended(
    ledger: Ledger, simulator: Simulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("core.controller.controller.STOP_TIMEOUT_S", 0.2)
    ended = asyncio.Event()

    async def slow_to_stop(name: str) -> None:  # fault injection: cleanup outlasting stop()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            await asyncio.sleep(1.0)
            ended.set()
            raise

    async with ComfyClient(simulator.url) as client:
        controller = Controller(ledger, client, config=FAST, output_dir=tmp_path / "out")
        monkeypatch.setattr(controller, "_change_feed_loop", slow_to_stop)
        await controller.start()
        await asyncio.sleep(0.1)
        await controller.stop()
        assert ledger.lease.held, "a task still runs: the lease is kept"
        with pytest.raises(LedgerError, match="still stopping"):
            await controller.start()
        await asyncio.wait_for(ended.wait(), 5)
        await wait_for(lambda: not ledger.lease.held)
        await controller.start()
        await controller.stop()
    assert not ledger.lease.held


async def test_stopping_a_controller_ends_every_task(
    ledger: Ledger, make_simulator: Callable[..., object], tmp_path: Path
) -> None:
    """Stop ends every task of the controller at once: it does not wait for the prompts it sent
    (a minute each here, longer than the bound on stop) to finish."""
    simulator: Simulator = await make_simulator(job_seconds=60.0)  # type: ignore[misc]
    queue(ledger, 3)
    async with ComfyClient(simulator.url) as client:
        controller = Controller(ledger, client, config=FAST, output_dir=tmp_path / "out")
        await controller.start()
        await wait_for(lambda: controller.status.in_flight > 0)
        tasks = list(controller._tasks)
        async with asyncio.timeout(20):  # well below the running prompt's minute
            await controller.stop()
        assert simulator.state.queue.running is not None, "stopped while its prompt still ran"
    assert all(task.done() for task in tasks)
    assert not ledger.lease.held


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rows(path: Path) -> dict[str, int]:
    """How many rows each table of the file at ``path`` holds (SQLite's own reading)."""
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as connection:
        return {
            table: connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("job", "attempt", "transition", "setting")
        }


def _prompts(path: Path) -> set[str]:
    with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as connection:
        return {prompt for (prompt,) in connection.execute("SELECT prompt_id FROM attempt")}


def _integrity(path: Path) -> str:
    with closing(sqlite3.connect(path)) as connection:
        return str(connection.execute("PRAGMA integrity_check").fetchone()[0])


def _backup(ledger: Ledger, to: Path) -> None:
    """A whole copy of the ledger as it is now (what an artist's backup holds)."""
    with closing(sqlite3.connect(ledger.path)) as source, closing(sqlite3.connect(to)) as copy:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode = DELETE")  # one file, as copied to a backup disk


async def test_a_ledger_replaced_under_the_controller_stops_it_before_any_write(
    tmp_path: Path, ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    ids = queue(ledger, 40)
    backup = tmp_path / "backup.sqlite3"
    _backup(ledger, backup)  # every job pending
    held, digest = _rows(backup), _digest(backup)
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.count_by_state(states=[JobState.succeeded]) != {})

    # The swap, between two of the controller's turns (it runs only while this test awaits):
    # what the replaced file holds now is all it may ever hold.
    old = tmp_path / "replaced.sqlite3"
    os.link(ledger.path, old)  # the replaced file kept, to read what was written into it
    before = _rows(ledger.path)
    os.replace(backup, ledger.path)

    await wait_for(lambda: controller.status.stopped != "")
    with pytest.raises(LedgerFileChanged) as stopped:
        controller.check_alive()
    assert str(stopped.value) == (
        f"the ledger {ledger.path} was replaced by another file (a backup restored, a file "
        "sync?): nothing more is written to either; start Batchline again to use the file now "
        "there"
    )
    await controller.stop()
    ledger.close()  # its WAL checkpointed into the replaced file, and removed from the path

    assert _digest(ledger.path) == digest, "the file now there holds exactly what it held"
    assert _integrity(ledger.path) == "ok"
    assert _rows(ledger.path) == held
    with Ledger(ledger.folder) as restored:
        assert {restored.job(job_id).state for job_id in ids} == {JobState.pending}
    assert _rows(old) == before, "nothing written into the replaced file after the swap"
    assert set(simulator.state.times) <= _prompts(old), "nothing sent that was not recorded"
    assert _integrity(old) == "ok"


async def test_a_ledger_removed_under_the_controller_stops_it_before_any_write(
    ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    queue(ledger, 40)
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.count_by_state(states=[JobState.succeeded]) != {})
    kept = ledger.folder.parent / "kept.sqlite3"
    os.link(ledger.path, kept)  # to read what was written into it
    before = _rows(ledger.path)
    ledger.path.unlink()

    await wait_for(lambda: controller.status.stopped != "")
    assert controller.status.stopped == (
        f"the ledger {ledger.path} is gone (deleted or moved away): nothing more is written to it"
    )
    await controller.stop()
    ledger.close()
    assert not ledger.path.exists(), "not made again"
    assert sorted(os.listdir(ledger.folder)) == ["ledger.sqlite3.controller.lock"], "no WAL left"
    assert _rows(kept) == before, "nothing written after the removal"
    assert set(simulator.state.times) <= _prompts(kept), "nothing sent that was not recorded"
    assert _integrity(kept) == "ok"


async def test_a_ledger_overwritten_in_place_by_another_is_told_by_its_id(
    tmp_path: Path, ledger: Ledger, simulator: Simulator, make_controller: MakeController
) -> None:
    """The same inode, another ledger's content (``cp other ledger.sqlite3``): the id inside
    the file at the path is not this ledger's."""
    queue(ledger, 40)
    controller = await make_controller(ledger, simulator)
    await wait_for(lambda: ledger.count_by_state(states=[JobState.succeeded]) != {})
    with Ledger(tmp_path / "other") as other:
        other.settings.set("ledger.id", "another-ledger")
        _backup(other, tmp_path / "other.sqlite3")
    ledger.handle.database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    inode = ledger.path.stat().st_ino
    with ledger.path.open("r+b") as file:
        file.write((tmp_path / "other.sqlite3").read_bytes())
    assert ledger.path.stat().st_ino == inode

    await wait_for(lambda: controller.status.stopped != "")
    assert "was replaced by another file" in controller.status.stopped
    await controller.stop()

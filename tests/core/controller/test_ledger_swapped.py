"""The ledger file replaced (a backup restored with ``mv``, a file sync) or removed under a
running controller: it stops with one line naming the file, before any further write, and the
file now at the path is left exactly as it came (its integrity check passes)."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from core.errors import LedgerFileChanged
from core.job_state import JobState
from core.ledger import Ledger
from simulator import Simulator
from tests.core.controller.conftest import MakeController, queue
from tests.core.helpers import wait_for

pytestmark = pytest.mark.asyncio


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

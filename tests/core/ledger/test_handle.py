"""The ledger's database handle: the stores and verbs work on it alone, and a database error
whose meaning is known leaves it as a LedgerError naming the file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from peewee import DatabaseError, IntegrityError

from core.errors import LedgerBusyError, LedgerFileChanged, LedgerWriteError
from core.ledger import Ledger, PresetContent, schema
from core.ledger import database as database_module
from core.ledger.handle import LedgerHandle
from core.ledger.owners import Actor
from core.ledger.stores import PresetStore, SettingsStore
from core.ledger.transitions import TransitionVerbs
from core.paths import ledger_path
from tests.core.ledger.conftest import WORKFLOW, make_jobs


def test_the_stores_and_verbs_need_only_a_handle(ledger: Ledger) -> None:
    (job_id,) = make_jobs(ledger, 1)
    handle = LedgerHandle(ledger.path)  # a second connection, no Ledger around it
    try:
        SettingsStore(handle).set("theme", "dark")
        assert PresetStore(handle, Actor.artist()).names() == ["demo"]
        TransitionVerbs(handle).request_cancel(job_id)
    finally:
        handle.close()
    assert ledger.settings.get("theme") == "dark"
    assert ledger.job(job_id).state == "cancelled"


def test_a_write_to_a_full_ledger_is_a_ledger_write_error_naming_it(ledger: Ledger) -> None:
    pages = ledger.handle.database.execute_sql("PRAGMA page_count").fetchone()[0]
    ledger.handle.database.execute_sql(f"PRAGMA max_page_count = {pages}")  # the disk is full
    before = ledger.job_ids()
    with pytest.raises(LedgerWriteError) as raised:
        make_jobs(ledger, 500)
    full = f"ledger {ledger.path}: the disk holding {ledger.folder} is full"
    assert str(raised.value) == full
    assert isinstance(raised.value.__cause__, DatabaseError)
    assert ledger.job_ids() == before, "nothing half written"


def test_a_write_lock_kept_too_long_is_a_ledger_busy_error_naming_it(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(database_module, "BUSY_TIMEOUT_S", 0.2)
    with Ledger(ledger.folder) as impatient:  # opened with the short busy timeout
        other = sqlite3.connect(ledger.path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            with pytest.raises(LedgerBusyError) as raised:
                impatient.settings.set("theme", "dark")
        finally:
            other.rollback()
            other.close()
        assert str(raised.value) == f"ledger {ledger.path}: database is locked"
        impatient.settings.set("theme", "dark")  # passing: the next write goes through
    assert ledger.settings.get("theme") == "dark"


def test_a_wrong_statement_is_a_bug_and_passes_unchanged(ledger: Ledger) -> None:
    with pytest.raises(IntegrityError), ledger.handle.tx():
        schema.Workflow.insert(hash="hash-demo", api_json="{}").execute()  # already stored
    ledger.presets.add("other", PresetContent("hash-other", WORKFLOW))  # the ledger goes on
    assert ledger.presets.names() == ["demo", "other"]


def statements(ledger: Ledger) -> list[str]:
    """The first word of each statement run on ``ledger``'s connection from now on."""
    seen: list[str] = []
    connection = ledger.handle.database.connection()
    connection.set_trace_callback(lambda sql: seen.append(sql.split()[0].upper()))
    return seen


def cancel_then_fail(ledger: Ledger, job_id: str) -> None:
    ledger.request_cancel(job_id)
    schema.Workflow.insert(hash="hash-demo", api_json="{}").execute()  # already stored


def test_a_write_caught_failing_inside_another_undoes_only_itself(ledger: Ledger) -> None:
    first, second = make_jobs(ledger, 2)
    with ledger.handle.tx():
        ledger.request_cancel(first)
        with pytest.raises(IntegrityError), ledger.handle.tx():
            cancel_then_fail(ledger, second)
    assert ledger.job(first).state == "cancelled"
    assert ledger.job(second).state == "pending", "its savepoint undone"


def test_writes_inside_joined_take_no_savepoint_and_an_error_undoes_them_all(
    ledger: Ledger,
) -> None:
    first, second, third = make_jobs(ledger, 3)
    ran = statements(ledger)
    with ledger.handle.joined():
        ledger.request_cancel(first)
        ledger.request_cancel(second)
    assert "SAVEPOINT" not in ran
    assert ran.count("COMMIT") == 1
    assert ledger.job(second).state == "cancelled"

    with pytest.raises(IntegrityError), ledger.handle.joined():
        cancel_then_fail(ledger, third)
    assert ledger.job(third).state == "pending", "all of it undone"


def test_joined_inside_another_is_one_savepoint_of_it(ledger: Ledger) -> None:
    first, second = make_jobs(ledger, 2)
    ran = statements(ledger)
    with ledger.handle.tx(), ledger.handle.joined():
        ledger.request_cancel(first)
        ledger.request_cancel(second)
    assert ran.count("SAVEPOINT") == 1
    assert [ledger.job(job_id).state for job_id in (first, second)] == ["cancelled"] * 2


def test_no_write_reaches_a_ledger_file_put_in_place_of_the_one_opened(
    ledger: Ledger, tmp_path: Path
) -> None:
    """Any process's write (a command, the API, the window), not only the controller's: the
    transaction is refused before its first statement, and the file now there is untouched."""
    (job_id,) = make_jobs(ledger, 1)
    with Ledger(tmp_path / "other") as other:
        other.settings.set("theme", "light")
    other_file = ledger_path(tmp_path / "other")
    held = other_file.read_bytes()
    os.replace(other_file, ledger.path)
    with pytest.raises(LedgerFileChanged, match="was replaced by another file"):
        ledger.settings.set("theme", "dark")
    with pytest.raises(LedgerFileChanged):
        TransitionVerbs(ledger.handle).request_cancel(job_id)
    ledger.close()
    assert ledger.path.read_bytes() == held
    with Ledger(ledger.folder) as now_there:
        assert now_there.settings.get("theme") == "light"

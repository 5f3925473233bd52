"""Opening ledger files: bad files are refused untouched; old schemas are migrated; processes
opening one at once all open it; the data folder and the ledger's files are readable by their
owner only."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import time
from pathlib import Path

import pytest

from core.errors import LedgerFormatError, LedgerOpenError, NotYours
from core.ledger import Ledger, NewJob, PresetContent
from core.ledger import database as database_module
from core.ledger.marks import Mark
from core.ledger.owners import Actor
from core.ledger.schema import APPLICATION_ID, SCHEMA_VERSION
from core.paths import ledger_path
from tests.core.ledger.conftest import (
    UNDO_12,
    WORKFLOW,
    make_jobs,
    make_schema_1_ledger,
    spawn,
    wait_for_line,
)

OPENERS = 6


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
    children = [spawn(script, home) for _ in range(OPENERS)]
    try:
        for child in children:
            wait_for_line(child, "ready")
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


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_new_ledger_is_marked_as_batchline(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        assert ledger.path == ledger_path(tmp_path)
    conn = sqlite3.connect(ledger_path(tmp_path))
    try:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_a_text_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = ledger_path(tmp_path)
    path.write_text("these are my notes, not a database\n")
    before = _digest(path)
    with pytest.raises(LedgerFormatError, match="not a Batchline ledger"):
        Ledger(tmp_path)
    assert _digest(path) == before


def test_another_programs_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = ledger_path(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE contacts (name TEXT)")
    conn.execute("INSERT INTO contacts VALUES ('Ada')")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(LedgerFormatError, match="another program's database"):
        Ledger(tmp_path)
    assert _digest(path) == before


def test_a_ledger_from_a_newer_batchline_is_refused_and_left_alone(tmp_path: Path) -> None:
    Ledger(tmp_path).close()
    path = ledger_path(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    before = _digest(path)
    with pytest.raises(LedgerFormatError, match="newer Batchline"):
        Ledger(tmp_path)
    assert _digest(path) == before


def test_an_older_schema_is_migrated_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The migration path: a ledger at version N is brought up through each step to N + 1."""
    Ledger(tmp_path).close()
    target = SCHEMA_VERSION + 1

    def add_note_column(db: object, migrator: database_module.SqliteMigrator) -> None:
        from peewee import TextField
        from playhouse.migrate import migrate

        migrate(migrator.add_column("job", "note", TextField(null=True)))

    monkeypatch.setattr(database_module, "SCHEMA_VERSION", target)
    monkeypatch.setitem(database_module.MIGRATIONS, target, add_note_column)
    database_module.open_database(ledger_path(tmp_path))[0].close()
    conn = sqlite3.connect(ledger_path(tmp_path))
    try:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(job)")]
        assert "note" in columns
        assert conn.execute("PRAGMA user_version").fetchone()[0] == target
    finally:
        conn.close()


def test_a_schema_1_ledger_gains_the_job_run_times_and_loses_the_requests(tmp_path: Path) -> None:
    """The real migrations 1 → 11, on a ledger that has jobs: they survive, with the new columns
    (batch names, where a success left its pictures); the requests table is gone, the
    controller's status, the API's tokens and the marks tables are there."""
    ids = make_schema_1_ledger(tmp_path, 3)
    with Ledger(tmp_path) as ledger:
        assert [job.id for job in ledger.jobs()] == ids
        assert ledger.job(ids[0]).started_at is None
        ledger.request_cancel(ids[0])
        assert ledger.job(ids[0]).finished_at is not None
    conn = sqlite3.connect(ledger_path(tmp_path))
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert "name" in [row[1] for row in conn.execute("PRAGMA table_info(batch)")]
        attempt_columns = [row[1] for row in conn.execute("PRAGMA table_info(attempt)")]
        assert {"refs_json", "placed_because"} <= set(attempt_columns)
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(job)")}
        assert "job_pending_line" in indexes
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        assert "request" not in tables
        assert {
            "job",
            "attempt",
            "setting",
            "controller_run",
            "api_token",
            "mark",
            "server_offer",
            "server_picture",
        } <= tables
    finally:
        conn.close()


def ledger_one_version_back(folder: Path, undo: str, version: int) -> list[str]:
    """A current ledger with two jobs, taken back to ``version`` by the SQL ``undo``; its job
    ids (reopening it migrates it again)."""
    with Ledger(folder) as ledger:
        ledger.presets.add("demo", PresetContent("hash-demo", WORKFLOW))
        ids = make_jobs(ledger, 2)
    conn = sqlite3.connect(ledger_path(folder))
    conn.executescript(UNDO_12)
    conn.execute(undo)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()
    return ids


def schema_version(folder: Path) -> int:
    conn = sqlite3.connect(ledger_path(folder))
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def test_a_schema_4_ledger_gains_the_api_tokens_table(tmp_path: Path) -> None:
    """Migration 4 → 5 alone: a ledger made by the last schema keeps its jobs and can hold
    tokens afterwards."""
    ids = ledger_one_version_back(tmp_path, "DROP TABLE api_token", 4)
    with Ledger(tmp_path) as ledger:
        assert [job.id for job in ledger.jobs()] == ids
        token = ledger.tokens.create("krita")
        assert ledger.tokens.requester(token) == "krita"
    assert schema_version(tmp_path) == SCHEMA_VERSION


def test_a_schema_5_ledger_gains_the_marks_table(tmp_path: Path) -> None:
    """Migration 5 → 6 alone: the jobs stay and can be marked afterwards."""
    ids = ledger_one_version_back(tmp_path, "DROP TABLE mark", 5)
    with Ledger(tmp_path) as ledger:
        ledger.marks.set(ids, Mark.star)
        assert ledger.marks.of(ids) == dict.fromkeys(ids, Mark.star)
    assert schema_version(tmp_path) == SCHEMA_VERSION


def test_a_schema_6_ledger_gains_batch_names(tmp_path: Path) -> None:
    """Migration 6 → 7 alone: the batches stay, unnamed, and can be named afterwards."""
    ids = ledger_one_version_back(tmp_path, "ALTER TABLE batch DROP COLUMN name", 6)
    with Ledger(tmp_path) as ledger:
        (batch,) = ledger.batches()
        assert batch.name is None
        assert ledger.name_batch(batch.id, "  dusk portraits ").name == "dusk portraits"
        assert ledger.job(ids[0]).batch == batch.id
    assert schema_version(tmp_path) == SCHEMA_VERSION


def test_a_schema_8_ledgers_presets_become_the_artists(tmp_path: Path) -> None:
    """Migration 8 → 9 alone: presets stored before owners were recorded are the artist's,
    stored and last changed locally; an API requester sees them but may not change them."""
    undo = "ALTER TABLE preset DROP COLUMN stored_by; ALTER TABLE preset DROP COLUMN changed_by"
    with Ledger(tmp_path) as ledger:
        ledger.presets.add("demo", PresetContent("hash-demo", WORKFLOW))
    conn = sqlite3.connect(ledger_path(tmp_path))
    conn.executescript(UNDO_12 + undo + "; PRAGMA user_version = 8;")
    conn.close()
    with Ledger(tmp_path) as ledger:
        record = ledger.presets.get("demo")
        assert record.stored_by == record.changed_by == Actor.artist()
        assert ledger.presets_for("bob").names() == ["demo"]
        with pytest.raises(NotYours):
            ledger.presets_for("bob").remove("demo")
    assert schema_version(tmp_path) == SCHEMA_VERSION


def test_a_schema_10_ledger_gains_the_servers_picture_names(tmp_path: Path) -> None:
    """Migration 10 → 11 alone: the jobs stay, and the names servers gave pictures can be kept."""
    ids = ledger_one_version_back(tmp_path, "DROP TABLE server_picture", 10)
    with Ledger(tmp_path) as ledger:
        assert [job.id for job in ledger.jobs()] == ids
        ledger.server_pictures.put("http://gpu-1:8188", "a" * 64, "batchline/a.png")
        assert ledger.server_pictures.get("http://gpu-1:8188", "a" * 64) == "batchline/a.png"
    assert schema_version(tmp_path) == SCHEMA_VERSION


def test_a_ledger_locked_beyond_the_busy_timeout_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI prints the error as one line, no traceback, and leaves the old ledger as it was."""
    from cli.main import main

    make_schema_1_ledger(tmp_path, 1)
    monkeypatch.setattr(database_module, "BUSY_TIMEOUT_S", 0.2)
    holder = sqlite3.connect(ledger_path(tmp_path), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(LedgerOpenError, match="database is locked") as caught:
            Ledger(tmp_path)
        assert str(caught.value).startswith(f"{ledger_path(tmp_path)}: cannot open the ledger")
        capsys.readouterr()
        assert main(["--data-dir", str(tmp_path), "jobs"]) == 1
        err = capsys.readouterr().err
        assert err.splitlines() == [f"batchline: {caught.value}"]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    conn = sqlite3.connect(ledger_path(tmp_path))
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    finally:
        conn.close()


def test_a_folder_where_the_ledger_file_should_be_is_one_line_naming_it(tmp_path: Path) -> None:
    ledger_path(tmp_path).mkdir()
    with pytest.raises(LedgerOpenError, match="cannot open the ledger") as caught:
        Ledger(tmp_path)
    assert str(ledger_path(tmp_path)) in str(caught.value)
    assert "\n" not in str(caught.value)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_a_new_ledger_and_its_folder_are_the_owners_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Ledger(home) as ledger:
        ledger.settings.set("output_dir", "/somewhere")  # the WAL and shared memory exist now
        path = ledger_path(home)
        beside = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
        assert mode(home) == 0o700
        assert [mode(file) for file in (path, *beside)] == [0o600] * 3
    lock = path.name + ".controller.lock"  # made with it: it outlives a deleted ledger
    assert sorted(p.name for p in home.iterdir()) == [path.name, lock], "nothing else left"
    assert mode(home / lock) == 0o600


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_a_ledger_others_could_read_becomes_the_owners_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    Ledger(home).close()
    ledger_path(home).chmod(0o644)  # as an older Batchline left it
    with Ledger(home):
        assert mode(ledger_path(home)) == 0o600


def test_a_schema_11_ledger_gets_its_pictures_indexed(tmp_path: Path) -> None:
    """Migration 11 → 12 alone: the jobs that had succeeded with pictures are found by the
    search, with their marks and batch names; the saved searches table is there."""
    from core.ledger.picture_index import PictureQuery
    from tests.core.finished_pictures import add_preset, finished

    with Ledger(tmp_path) as ledger:
        add_preset(ledger)
        batch, ids = finished(ledger, tmp_path / "out", [{"3.seed": 1042}, {"3.seed": 7}])
        ledger.marks.set([ids[0]], Mark.star)
        ledger.name_batch(batch, "Evening foxes")
        ledger.create_batch("Portrait", [NewJob({"3.seed": 5})], requester="artist")  # pending
    conn = sqlite3.connect(ledger_path(tmp_path))
    conn.executescript(UNDO_12 + "PRAGMA user_version = 11;")
    conn.close()
    with Ledger(tmp_path) as ledger:
        index = ledger.picture_index
        assert [hit.job_id for hit in index.search(PictureQuery())] == ids[::-1]
        starred = index.search(PictureQuery('mark : "starred" AND batch : "evening"'))
        assert [hit.job_id for hit in starred] == ids[:1]
        (hit,) = index.search(PictureQuery('seed : "7" AND prompt : "fox"'))
        assert hit.path == tmp_path / "out" / f"{ids[1]}_0.png"
        ledger.saved_searches.save("foxes", "fox")
    assert schema_version(tmp_path) == SCHEMA_VERSION


def test_a_process_finding_the_ledger_being_migrated_waits_past_the_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Migration 12 indexes every picture there: on a big ledger it holds the write lock longer
    than the busy timeout, and another opener (the window's background controller) waits for
    it rather than failing with "database is locked"."""
    import threading

    ids = ledger_one_version_back(tmp_path, "SELECT 1", 11)
    monkeypatch.setattr(database_module, "BUSY_TIMEOUT_S", 0.2)
    migrating, opened = threading.Event(), []
    build = database_module.MIGRATIONS[12]

    def slow_build(db: object, migrator: database_module.SqliteMigrator) -> None:
        migrating.set()
        time.sleep(1.0)  # five busy timeouts
        build(db, migrator)  # type: ignore[arg-type]

    monkeypatch.setitem(database_module.MIGRATIONS, 12, slow_build)

    def open_it() -> None:
        db, _ = database_module.open_database(ledger_path(tmp_path))
        opened.append(db)

    first = threading.Thread(target=open_it)
    first.start()
    assert migrating.wait(10)
    open_it()  # waits for the first to finish migrating, then finds nothing to do
    first.join()
    for db in opened:
        db.close()
    assert len(opened) == 2
    with Ledger(tmp_path) as ledger:
        assert [job.id for job in ledger.jobs()] == ids
    assert schema_version(tmp_path) == SCHEMA_VERSION

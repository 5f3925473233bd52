"""Opening a ledger file: the format check, the durability pragmas, creation and migration."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from peewee import FloatField, SqliteDatabase
from playhouse import migrate as playhouse_migrate
from playhouse.migrate import SqliteMigrator

from core.errors import LedgerFormatError
from core.ledger.schema import APPLICATION_ID, MODELS, SCHEMA_VERSION, database_proxy

if TYPE_CHECKING:
    from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 10.0

# Schema migrations: MIGRATIONS[v] brings a ledger from version v - 1 to v. Version 1 is the
# first schema, created whole; later versions add an entry here (playhouse.migrate operations).
Migration = Callable[[SqliteDatabase, SqliteMigrator], None]


def _job_run_times(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 2: jobs carry their current attempt's run times; indexes for big backlogs."""
    playhouse_migrate.migrate(
        migrator.add_column("job", "started_at", FloatField(null=True)),
        migrator.add_column("job", "finished_at", FloatField(null=True)),
    )
    db.execute_sql("CREATE INDEX IF NOT EXISTS attempt_result ON attempt (result)")
    db.execute_sql(
        "CREATE INDEX IF NOT EXISTS job_pending_line ON job (state, requester, priority DESC)"
    )


MIGRATIONS: dict[int, Migration] = {2: _job_run_times}


def open_database(path: Path) -> SqliteDatabase:
    """Open (creating or migrating if needed) the ledger at ``path``.

    Raises:
        LedgerFormatError: the file is not a Batchline ledger or comes from a newer schema; the
            file is left untouched.
    """
    version = check_format(path)
    db = SqliteDatabase(
        str(path),
        timeout=BUSY_TIMEOUT_S,
        pragmas={"journal_mode": "wal", "synchronous": "full", "foreign_keys": 1},
        autoconnect=False,
    )
    db.connect()
    try:
        if version is None:
            _create(db)
        elif version < SCHEMA_VERSION:
            upgrade(db, version)
    except BaseException:
        db.close()
        raise
    return db


def check_format(path: Path) -> int | None:
    """The schema version of the ledger at ``path``, or None when it is new (absent or empty).

    Reads the file without writing to it (SQLite's read-only mode).
    """
    if not path.exists() or path.stat().st_size == 0:
        return None
    with path.open("rb") as handle:
        header = handle.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise LedgerFormatError(f"{path}: not a Batchline ledger (not an SQLite database)")
    app_id, version, tables = _read_ids(path)
    if app_id == 0 and version == 0 and tables == 0:
        return None  # created by another process a moment ago, schema not written yet
    if app_id != APPLICATION_ID:
        raise LedgerFormatError(f"{path}: not a Batchline ledger (another program's database)")
    if version > SCHEMA_VERSION:
        raise LedgerFormatError(
            f"{path}: written by a newer Batchline (schema {version}, this one reads up to "
            f"{SCHEMA_VERSION}); update Batchline to open it"
        )
    return version


def _read_ids(path: Path) -> tuple[int, int, int]:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise LedgerFormatError(f"{path}: not a Batchline ledger ({exc})") from exc
    return int(app_id), int(version), int(tables)


def _create(db: SqliteDatabase) -> None:
    with database_proxy.using(db), db.atomic("IMMEDIATE"):
        db.create_tables(MODELS)
        db.execute_sql(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")


def upgrade(db: SqliteDatabase, version: int) -> None:
    """Apply each migration after ``version`` in order, each in its own transaction."""
    migrator = SqliteMigrator(db)
    for target in range(version + 1, SCHEMA_VERSION + 1):
        with database_proxy.using(db), db.atomic("IMMEDIATE"):
            MIGRATIONS[target](db, migrator)
            db.execute_sql(f"PRAGMA user_version = {target}")

"""Opening a ledger file: the format check, the durability pragmas, creation and migration."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from peewee import DatabaseError as PeeweeDatabaseError
from peewee import FloatField, SqliteDatabase
from peewee import OperationalError as PeeweeOperationalError
from playhouse import migrate as playhouse_migrate
from playhouse.migrate import SqliteMigrator

from core.errors import LedgerFormatError, LedgerOpenError
from core.ledger.schema import APPLICATION_ID, MODELS, SCHEMA_VERSION, database_proxy

if TYPE_CHECKING:
    from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 10.0
BUSY_RETRY_S = 0.02

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

    Any number of processes may open one ledger at once: creating and migrating happen under
    SQLite's write lock, so one process does it and the others wait, then find it done.

    Raises:
        LedgerFormatError: the file is not a Batchline ledger or comes from a newer schema; the
            file is left untouched.
        LedgerOpenError: the file could not be read, or SQLite could not open, create or
            migrate it (locked beyond ``BUSY_TIMEOUT_S``, read-only, damaged); the message
            names the file.
    """
    db = SqliteDatabase(
        str(path),
        timeout=BUSY_TIMEOUT_S,
        pragmas={"journal_mode": "wal", "synchronous": "full", "foreign_keys": 1},
        autoconnect=False,
    )
    try:
        version = check_format(path)
        _connect(db)
        if version != SCHEMA_VERSION:
            _bring_up_to_date(db)
    except (PeeweeDatabaseError, sqlite3.Error, OSError) as exc:
        db.close()
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise LedgerOpenError(f"{path}: cannot open the ledger ({reason})") from exc
    except BaseException:
        db.close()
        raise
    return db


def _connect(db: SqliteDatabase) -> None:
    """Connect, which also switches a new file to WAL.

    Processes switching one new file at once deadlock on its lock, and SQLite answers "database
    is locked" to one of them at once instead of waiting: that one tries again, for up to
    ``BUSY_TIMEOUT_S`` in all.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            db.connect()
        except PeeweeOperationalError as exc:
            if not _busy(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(BUSY_RETRY_S)
        else:
            return


def _busy(exc: PeeweeOperationalError) -> bool:
    cause = exc.__context__
    code = getattr(cause, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_BUSY


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


def _bring_up_to_date(db: SqliteDatabase) -> None:
    """Create the schema, or apply each migration after the file's version in order.

    One ``BEGIN IMMEDIATE`` transaction: the version is read again once the write lock is held,
    so a process that waited while another created or migrated the ledger finds nothing to do,
    and a ledger is never left half migrated.
    """
    with database_proxy.using(db), db.atomic("IMMEDIATE"):
        version = int(db.execute_sql("PRAGMA user_version").fetchone()[0])
        if version == 0:  # a new file: check_format refused any other database
            db.create_tables(MODELS)
            db.execute_sql(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
            return
        migrator = SqliteMigrator(db)
        for target in range(version + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[target](db, migrator)
            db.execute_sql(f"PRAGMA user_version = {target}")

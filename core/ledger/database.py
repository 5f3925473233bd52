"""Opening a ledger file: the format check, the durability pragmas, creation and migration."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from peewee import CharField, FloatField, SqliteDatabase, TextField
from peewee import DatabaseError as PeeweeDatabaseError
from peewee import OperationalError as PeeweeOperationalError
from playhouse import migrate as playhouse_migrate
from playhouse.migrate import SqliteMigrator

from core.errors import LedgerFormatError, LedgerMissingError, LedgerOpenError
from core.ledger import picture_index
from core.ledger.owners import Actor
from core.ledger.schema import (
    APPLICATION_ID,
    MODELS,
    SCHEMA_VERSION,
    ApiToken,
    BatchNotice,
    ControllerRun,
    Mark,
    Preset,
    PresetVersion,
    SavedSearch,
    ServerOffer,
    ServerPicture,
    database_proxy,
)
from core.ledger.sqlite_errors import ledger_problem, primary_code, sqlite_errors

if TYPE_CHECKING:
    from pathlib import Path

BUSY_TIMEOUT_S = 10.0
# A process that finds the ledger being migrated waits this many times longer for it: migration
# 12 indexes every picture already there (about 10 s per 100,000 jobs).
MIGRATION_WAIT = 12
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


def _drop_requests(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 3: no requests table; commands from other processes are ledger changes that the
    controller sees in the change feed."""
    db.execute_sql("DROP TABLE IF EXISTS request")


def _controller_run(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 4: the controller publishes its status (and is asked to stop) in the ledger."""
    ControllerRun.create_table(safe=True)


def _api_tokens(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 5: the HTTP API's requesters, each with the hash of its token."""
    ApiToken.create_table(safe=True)


def _marks(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 6: the artist's marks on jobs (star, reject)."""
    Mark.create_table(safe=True)


def _batch_names(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 7: a batch may carry the artist's name for it."""
    if "name" not in {column.name for column in db.get_columns("batch")}:
        playhouse_migrate.migrate(migrator.add_column("batch", "name", CharField(null=True)))


def _output_refs(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 8: a success records where its pictures lie on the server before they are
    fetched (a restart of ComfyUI forgets its history, not its output folder)."""
    if "refs_json" not in {column.name for column in db.get_columns("attempt")}:
        playhouse_migrate.migrate(migrator.add_column("attempt", "refs_json", TextField(null=True)))


def _preset_owners(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 9: a preset records who stored it (its owner) and who last changed it; those
    stored before were the artist's, locally (the API could store but not yet own)."""
    artist = Actor.artist().key
    have = {column.name for column in db.get_columns("preset")}
    playhouse_migrate.migrate(
        *(
            migrator.add_column("preset", column, CharField(default=artist))
            for column in ("stored_by", "changed_by")
            if column not in have
        )
    )


def _placement(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 10: what each server can run (its offer), and why each attempt went where it went."""
    ServerOffer.create_table(safe=True)
    if "placed_because" not in {column.name for column in db.get_columns("attempt")}:
        playhouse_migrate.migrate(
            migrator.add_column("attempt", "placed_because", TextField(null=True))
        )


def _server_pictures(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 11: the name each server gave each input picture Batchline uploaded to it."""
    ServerPicture.create_table(safe=True)


def _picture_search(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 12: the picture search's full-text index, built for every picture already there,
    and the saved searches."""
    SavedSearch.create_table(safe=True)
    picture_index.create_tables(db)
    picture_index.rebuild(db)


def _batch_notices(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 13: what each batch's end tells the artist (desktop, webhook) and has told."""
    BatchNotice.create_table(safe=True)


def _preset_versions(db: SqliteDatabase, migrator: SqliteMigrator) -> None:
    """Schema 14: every content a preset holds is a numbered version; each preset there has
    its current content as version 1."""
    PresetVersion.create_table(safe=True)
    versioned = PresetVersion.select(PresetVersion.preset)
    for row in Preset.select().where(Preset.id.not_in(versioned)):
        PresetVersion.create(
            preset=row.id,
            number=1,
            workflow=row.workflow_hash,
            editor_json=row.editor_json,
            source=row.source,
            info_json=row.info_json,
            created_at=row.updated_at,
            stored_by=row.changed_by,
        )


MIGRATIONS: dict[int, Migration] = {
    2: _job_run_times,
    3: _drop_requests,
    4: _controller_run,
    5: _api_tokens,
    6: _marks,
    7: _batch_names,
    8: _output_refs,
    9: _preset_owners,
    10: _placement,
    11: _server_pictures,
    12: _picture_search,
    13: _batch_notices,
    14: _preset_versions,
}


def make_data_folder(folder: Path) -> None:
    """Create the ledger's folder, readable by its owner only, unless it exists.

    Raises:
        LedgerOpenError: it cannot be created, or is not a folder; the message names it.
    """
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        raise LedgerOpenError(f"the data folder {folder} is a file, not a folder") from None
    except NotADirectoryError:
        raise LedgerOpenError(
            f"the data folder {folder} cannot be created: part of its path is a file"
        ) from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise LedgerOpenError(f"the data folder {folder} cannot be created ({reason})") from exc


def open_database(path: Path, *, create: bool = True) -> tuple[SqliteDatabase, bool]:
    """Open (creating or migrating if needed) the ledger at ``path``; whether it was created.

    Only a missing file is created (unless not ``create``), whole, under another name first
    (``_create``): an existing file that is empty or damaged is refused, never replaced. Any
    number of processes may open one ledger at once: migrating happens under SQLite's write
    lock, so one process does it and the others wait, then find it done.

    Raises:
        LedgerMissingError: there is no file and not ``create``.
        LedgerFormatError: the file is not a Batchline ledger (empty, another program's, not
            SQLite) or comes from a newer schema; the file is left untouched.
        LedgerOpenError: the file could not be read, or SQLite could not open, create or
            migrate it (locked beyond ``BUSY_TIMEOUT_S``, read-only, the disk full, damaged);
            the message names the file.
    """
    db = SqliteDatabase(
        str(path),
        timeout=BUSY_TIMEOUT_S,
        pragmas={"journal_mode": "wal", "synchronous": "full", "foreign_keys": 1},
        autoconnect=False,
    )
    created = False
    try:
        _check_writable(path)
        if not os.path.lexists(path):
            if not create:
                raise LedgerMissingError(missing_ledger(path))
            created = _create(path)
        version = check_format(path)
        _keep_private(path)
        _connect(db)
        if version != SCHEMA_VERSION:
            _migrate(db)
    except (PeeweeDatabaseError, sqlite3.Error, OSError) as exc:
        db.close()
        raise LedgerOpenError(_why_not(exc, path)) from exc
    except BaseException:
        db.close()
        raise
    return db, created


def missing_ledger(path: Path) -> str:
    """One line: no ledger at ``path``, none is made, and what to do."""
    return (
        f"there is no ledger at {path} (deleted or moved away?): none is made in its place; "
        "restore it, or start a new one with `batchline init`"
    )


def never_held_a_ledger(path: Path) -> bool:
    """Whether the folder of ``path`` holds nothing of a ledger by that name (the file, its WAL,
    its controller lock, which outlive a deleted ledger): a first start, where a new ledger is
    made. A folder that cannot be listed says no: opening the ledger will say why."""
    try:
        names = os.listdir(path.parent)
    except (FileNotFoundError, NotADirectoryError):
        return True  # making the folder will say what is in the way
    except OSError:
        return False
    return not any(name.startswith(path.name) and not _unfinished(name) for name in names)


def _unfinished(name: str) -> bool:
    """A ledger half made by a crashed ``_create`` (left over, removed by the next one)."""
    return ".new" in name


def _check_writable(path: Path) -> None:
    """Refuse a ledger (or a folder for one) that cannot be written: SQLite needs both."""
    for target in (path, path.parent):
        if target.exists() and not os.access(target, os.W_OK):
            kind = "folder" if target.is_dir() else "file"
            raise LedgerOpenError(
                f"{path}: cannot open the ledger: the {kind} {target} is read-only"
            )


def _why_not(exc: BaseException, path: Path) -> str:
    """One line: the ledger could not be opened, and why (a full disk, damage said plainly)."""
    problem = ledger_problem(exc, path)
    if problem is not None:
        return f"{path}: cannot open the ledger: {problem}"
    errors = sqlite_errors(exc)
    if errors:
        reason = str(errors[-1])  # the first failure, not a failed rollback after it
    else:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"{path}: cannot open the ledger ({reason})"


def _create(path: Path) -> bool:
    """Write a new ledger beside ``path``, then give it that name unless another process did
    (whether this one did).

    The ledger file therefore never exists half made (a file found empty or without a schema
    is damaged, not new), and it is readable by its owner only: SQLite gives its WAL and
    shared-memory files the same mode.
    """
    part = path.with_name(f"{path.name}.{os.getpid()}.new")
    _remove(part)  # left by a crash of an earlier process with this pid
    os.close(os.open(part, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    try:
        db = SqliteDatabase(str(part), pragmas={"journal_mode": "wal"}, autoconnect=False)
        db.connect()
        try:
            with database_proxy.using(db), db.atomic("IMMEDIATE"):
                db.create_tables(MODELS)
                picture_index.create_tables(db)
                db.execute_sql(f"PRAGMA application_id = {APPLICATION_ID}")
                db.execute_sql(f"PRAGMA user_version = {SCHEMA_VERSION}")
        finally:
            db.close()
        try:
            os.link(part, path)
        except FileExistsError:
            return False  # another process created it first: that one is the ledger
        except OSError:  # no hard links here (FAT, some shares): a rename, if still missing
            if os.path.lexists(path):
                return False
            os.replace(part, path)
        return True
    finally:
        _remove(part)


def _keep_private(path: Path) -> None:
    """Make a ledger that others may read (made by an older Batchline) its owner's only."""
    for file in (path, *_beside(path)):
        with contextlib.suppress(OSError):  # missing, or not ours to change
            if file.stat().st_mode & 0o077:
                file.chmod(0o600)


def _beside(path: Path) -> tuple[Path, Path]:
    """SQLite's WAL and shared-memory files of ``path``."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def _remove(part: Path) -> None:
    for leftover in (part, *_beside(part)):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()


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
    return exc.__context__ is not None and primary_code(exc.__context__) == sqlite3.SQLITE_BUSY


def check_format(path: Path) -> int:
    """The schema version of the ledger at ``path``.

    Reads the file without writing to it (SQLite's read-only mode).
    """
    if path.stat().st_size == 0:
        raise LedgerFormatError(
            f"{path}: the ledger is empty (0 bytes; truncated?): it is left as it is; restore "
            "it from a backup, or move it away to start a new ledger"
        )
    # Only SQLite opens the file: a descriptor of it opened and closed here would drop every
    # POSIX lock this process holds on it (another Ledger's connection), and another process
    # closing the ledger could then delete the WAL under that live connection.
    app_id, version = _read_ids(path)
    if app_id != APPLICATION_ID:
        raise LedgerFormatError(f"{path}: not a Batchline ledger (another program's database)")
    if version > SCHEMA_VERSION:
        raise LedgerFormatError(
            f"{path}: written by a newer Batchline (schema {version}, this one reads up to "
            f"{SCHEMA_VERSION}); update Batchline to open it"
        )
    return version


def _read_ids(path: Path) -> tuple[int, int]:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if primary_code(exc) in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT):
            raise LedgerFormatError(f"{path}: not a Batchline ledger ({exc})") from exc
        raise
    return int(app_id), int(version)


def _migrate(db: SqliteDatabase) -> None:
    """Apply each migration after the file's version in order.

    One ``BEGIN IMMEDIATE`` transaction: the version is read again once the write lock is held,
    so a process that waited while another migrated the ledger (up to ``MIGRATION_WAIT`` busy
    timeouts) finds nothing to do, and a ledger is never left half migrated.
    """
    db.execute_sql(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * MIGRATION_WAIT * 1000)}")
    try:
        with database_proxy.using(db), db.atomic("IMMEDIATE"):
            version = int(db.execute_sql("PRAGMA user_version").fetchone()[0])
            migrator = SqliteMigrator(db)
            for target in range(version + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[target](db, migrator)
                db.execute_sql(f"PRAGMA user_version = {target}")
    finally:
        db.execute_sql(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")

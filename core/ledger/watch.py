"""Whether the file at the ledger's path is still the one this process opened.

A ledger file replaced under a running process (a backup restored with ``mv``, a file sync)
or removed goes on taking that process's writes unseen: SQLite writes into the file it holds
open, and its WAL and shared-memory files, still at the path, then belong to another database
than the one now there; the next process to open it reads them as the new file's, which then
fails SQLite's integrity check. So every write transaction first compares the file at the path
(``os.stat``: device and inode) with the one opened, and the controller does so each tick with
the ledger's own id too (read from the file at the path, at most every ``ID_EVERY_S``): a file
replaced in place keeps its inode. Either check failing raises ``LedgerFileChanged`` naming the
file, and nothing more is written. Closing then (``close``) checkpoints the WAL into the file
it belongs to and removes it and the shared memory from the path: SQLite leaves both there
when its file has moved, where the file now there would read them as its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from typing import TYPE_CHECKING

from peewee import PeeweeException

from core.errors import LedgerFileChanged
from core.ledger.sqlite_errors import primary_code

if TYPE_CHECKING:
    from pathlib import Path

    from peewee import SqliteDatabase

LEDGER_ID_KEY = "ledger.id"  # the setting holding the ledger's own random id
ID_EVERY_S = 1.0  # how often the id inside the file at the path is read (it opens the file)
_ID_SQL = "SELECT value_json FROM setting WHERE key = ?"
# What reading the id from the file at the path answers when it is no ledger of ours at all.
_NOT_A_LEDGER = frozenset({sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_ERROR})


class FileWatch:
    """The identity of one open ledger file, and checks that the path still leads to it.

    Made right after the file is opened: its device and inode then are those of the file
    SQLite holds (Python's sqlite3 gives no descriptor to ``fstat``; one opened here would drop
    SQLite's POSIX locks when closed).
    """

    def __init__(self, path: Path, database: SqliteDatabase) -> None:
        self.path, self._database = path, database
        self._where = os.fspath(path)  # stat takes a str fastest: it is done on every write
        self._inode = _inode(os.stat(path))
        self._beside = {file: _inode_at(file) for file in _beside(path)}  # ours, opened with it
        self._id: str | None = None  # read through our own connection once it exists
        self._id_checked = time.monotonic()

    def close(self) -> None:
        """Close the database; when its file was replaced or removed, first checkpoint the WAL
        into that file (what was written stays with it), then remove the WAL and shared memory
        this connection opened, if they are still the ones at the path."""
        try:
            self.check()
        except LedgerFileChanged:
            pass
        else:
            self._database.close()
            return
        with contextlib.suppress(sqlite3.Error, PeeweeException):
            self._database.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        self._database.close()
        for file, inode in self._beside.items():
            if inode is not None and _inode_at(file) == inode:
                with contextlib.suppress(OSError):
                    file.unlink()

    def check(self) -> None:
        """Raise ``LedgerFileChanged`` when the path no longer leads to the file opened (one
        ``os.stat``: cheap enough for every write transaction)."""
        try:
            found = os.stat(self._where)
        except (FileNotFoundError, NotADirectoryError):
            raise LedgerFileChanged(
                f"the ledger {self.path} is gone (deleted or moved away): nothing more is "
                "written to it"
            ) from None
        except OSError:
            return  # unreadable for a moment (a share reconnecting): the write itself will say
        if (found.st_dev, found.st_ino) != self._inode:
            raise self._replaced()

    def check_id(self) -> None:
        """``check``, then (at most every ``ID_EVERY_S``) the ledger's own id read from the
        file at the path against ours: a file overwritten in place keeps its inode."""
        self.check()
        now = time.monotonic()
        if now - self._id_checked < ID_EVERY_S:
            return
        self._id_checked = now
        ours = self._id = self._id or _read_id(self._database.connection())
        if ours is None:
            return  # no id made yet: the inode alone tells
        try:
            theirs = _id_at(self.path)
        except sqlite3.DatabaseError as exc:
            if primary_code(exc) not in _NOT_A_LEDGER:
                return  # busy, unreadable for a moment: the inode still told, the next look may
            theirs = None  # not a database any more, or not one with our tables
        if theirs != ours:
            raise self._replaced()

    def _replaced(self) -> LedgerFileChanged:
        return LedgerFileChanged(
            f"the ledger {self.path} was replaced by another file (a backup restored, a file "
            "sync?): nothing more is written to either; start Batchline again to use the file "
            "now there"
        )


def _inode(found: os.stat_result) -> tuple[int, int]:
    return found.st_dev, found.st_ino


def _inode_at(path: Path) -> tuple[int, int] | None:
    try:
        return _inode(os.stat(path))
    except OSError:
        return None


def _beside(path: Path) -> tuple[Path, Path]:
    """SQLite's WAL and shared-memory files of ``path``."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def _read_id(connection: sqlite3.Connection) -> str | None:
    row = connection.execute(_ID_SQL, (LEDGER_ID_KEY,)).fetchone()
    value = json.loads(row[0]) if row else None
    return value if isinstance(value, str) and value else None


def _id_at(path: Path) -> str | None:
    """The id inside the file at ``path``, read without writing (SQLite's read-only mode; a
    connection of SQLite's own, which keeps this process's locks on the file when closed)."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1.0)
    try:
        return _read_id(connection)
    finally:
        connection.close()

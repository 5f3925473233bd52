"""The ledger's open database, shared by the Ledger, its transition verbs and its stores."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from typing import TYPE_CHECKING

from peewee import DatabaseError as PeeweeDatabaseError

from core.ledger import schema
from core.ledger.database import open_database
from core.ledger.sqlite_errors import ledger_error
from core.ledger.watch import FileWatch

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

# Reserve numbers of a family (in a tx: its write lock keeps other writers out meanwhile);
# plain statements, as allocating happens in every write.
_RESERVE = (
    "INSERT INTO counter (key, value) VALUES (?, ?)"
    " ON CONFLICT (key) DO UPDATE SET value = value + excluded.value"
)
_RESERVED = "SELECT value FROM counter WHERE key = ?"


class _Joining(threading.local):
    depth = 0


class LedgerHandle:
    """One ledger file's database: its transactions, clock and counters.

    Work happens inside ``tx`` or ``read``, which bind the models to this database for the
    calling thread. A database error whose meaning is known leaves them as a ``LedgerError``
    naming the file (``sqlite_errors.ledger_error``): ``LedgerWriteError`` when the file cannot
    be written (disk full, read-only, damaged), ``LedgerBusyError`` when another process kept
    its write lock too long. Any other database error is a wrong statement, a bug: it passes
    unchanged. A write transaction first checks that the path still leads to the file opened
    (``watch``): ``LedgerFileChanged`` otherwise, before anything is written.
    """

    def __init__(self, path: Path, *, create: bool = True) -> None:
        """Open (migrating if needed) the ledger at ``path``; a missing one is made when
        ``create``, refused otherwise (``open_database``); ``created`` says whether it was."""
        self.path = path
        self.database, self.created = open_database(path, create=create)
        self.watch = FileWatch(path, self.database)
        self._joining = _Joining()  # per thread, as each thread has its own connection

    def close(self) -> None:
        self.watch.close()

    @contextlib.contextmanager
    def tx(self) -> Iterator[None]:
        """A write transaction that holds SQLite's write lock from its first statement.

        Inside another, a savepoint of it: an error its caller catches undoes this part only.
        Inside ``joined``, simply part of that one.
        """
        if self.database.in_transaction():
            if self._joining.depth:
                yield
                return
        else:  # the outermost: the file is checked once, before its first statement
            self.watch.check()
        with (
            self._translated(),
            schema.database_proxy.using(self.database),
            self.database.atomic("IMMEDIATE"),
        ):
            yield

    @contextlib.contextmanager
    def joined(self) -> Iterator[None]:
        """A ``tx`` that the writes inside it join, without a savepoint each: for a caller that
        lets any error undo all of it (a savepoint per write costs two statements)."""
        with self.tx():
            self._joining.depth += 1
            try:
                yield
            finally:
                self._joining.depth -= 1

    @contextlib.contextmanager
    def read(self) -> Iterator[None]:
        """A read transaction: one consistent view of the ledger."""
        with (
            self._translated(),
            schema.database_proxy.using(self.database),
            self.database.atomic(),
        ):
            yield

    @contextlib.contextmanager
    def thread_connection(self) -> Iterator[None]:
        """A connection of the calling thread's own, for work off the thread that opened the
        ledger (each thread has its own SQLite connection); closed at the end."""
        with self._translated():
            opened = self.database.connect(reuse_if_open=True)
        try:
            yield
        finally:
            if opened:
                self.database.close()

    @staticmethod
    def now() -> float:
        return time.time()

    def allocate(self, family: str, count: int = 1) -> int:
        """Reserve ``count`` consecutive numbers of ``family``; returns the first. In a tx."""
        database = schema.database_proxy
        database.execute_sql(_RESERVE, (family, count))
        (last,) = database.execute_sql(_RESERVED, (family,)).fetchone()
        return int(last) - count + 1

    def next_seq(self, count: int = 1) -> int:
        """First of ``count`` change-feed positions (in a tx)."""
        return self.allocate("seq", count)

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except (PeeweeDatabaseError, sqlite3.Error) as exc:
            error = ledger_error(exc, self.path)
            if error is None:
                raise
            raise error from exc

"""Reading SQLite's errors behind peewee's: which ones, and their primary result codes."""

from __future__ import annotations

import shutil
import sqlite3
from typing import TYPE_CHECKING

from core.errors import LedgerBusyError, LedgerError, LedgerWriteError

if TYPE_CHECKING:
    from pathlib import Path

# SQLite's primary result codes for a file that cannot be written: retrying cannot help.
UNWRITABLE = frozenset(
    {
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_CORRUPT,
        sqlite3.SQLITE_NOTADB,
        sqlite3.SQLITE_PERM,
    }
)
# Codes of a write lock another connection kept beyond the busy timeout: passing.
_BUSY = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
# Codes a full disk also gives (creating the WAL's shared memory fails as an I/O error).
_MAYBE_FULL = frozenset({sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN})


def sqlite_errors(exc: BaseException) -> list[sqlite3.Error]:
    """The SQLite errors behind ``exc``, outermost first (peewee wraps them, and a rollback
    that fails after SQLite already rolled back hides the original one)."""
    found: list[sqlite3.Error] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, sqlite3.Error):
            found.append(current)
        current = current.__cause__ or current.__context__
    return found


def primary_code(error: BaseException) -> int | None:
    """SQLite's primary result code of ``error`` (SQLITE_FULL, ...), None when it has none."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def ledger_problem(exc: BaseException, path: Path) -> str | None:
    """What the SQLite errors behind ``exc`` say about the ledger file at ``path``, when that is
    something the user can act on: its disk is full, or it is damaged; None otherwise."""
    errors = sqlite_errors(exc)
    codes = {primary_code(error) for error in errors}
    if sqlite3.SQLITE_FULL in codes or (codes & _MAYBE_FULL and _no_room(path.parent)):
        return f"the disk holding {path.parent} is full"
    if codes & {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}:
        return f"the file is damaged ({errors[-1]}); it is left as it is: restore it from a backup"
    return None


def ledger_failure(exc: BaseException, path: Path) -> str | None:
    """One line naming the ledger at ``path`` and what SQLite's error behind ``exc`` means for
    it; None when no SQLite error is behind it."""
    errors = sqlite_errors(exc)
    if not errors:
        return None
    # The first failure, not a failed rollback after it.
    return f"ledger {path}: {ledger_problem(exc, path) or errors[-1]}"


def ledger_error(exc: BaseException, path: Path) -> LedgerError | None:
    """The ``LedgerError`` that the SQLite errors behind ``exc`` mean for the ledger at ``path``
    (its message from ``ledger_failure``): ``LedgerWriteError`` when the file cannot be written,
    ``LedgerBusyError`` when its write lock stayed taken; None for any other error."""
    codes = {primary_code(error) for error in sqlite_errors(exc)}
    kind: type[LedgerError]
    if codes & UNWRITABLE:
        kind = LedgerWriteError
    elif codes & _BUSY:
        kind = LedgerBusyError
    else:
        return None
    return kind(ledger_failure(exc, path) or str(exc))


def _no_room(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free == 0
    except OSError:
        return False

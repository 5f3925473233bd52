"""What an error in one of the controller's loops means, and the local errors being retried.

An error is ComfyUI's (the server link goes offline and backs off), local and passing (a busy
ledger, a bug: logged once, shown in the status, the loop restarts after a backoff; never blamed
on ComfyUI), or one the controller cannot survive (a refused token, the lease lost, a ledger file
that cannot be written, or replaced or removed under it: ``LedgerFileChanged``): the controller
stops and says why.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from core.comfy import Backoff
from core.errors import (
    BatchlineError,
    ComfyAuthError,
    LeaseTakenError,
    LedgerWriteError,
    OutputFolderBlocked,
)
from core.ledger.sqlite_errors import UNWRITABLE, ledger_failure, primary_code, sqlite_errors

if TYPE_CHECKING:
    from pathlib import Path

log = logging.getLogger(__name__)


def fatal_error(exc: BaseException, ledger_file: Path) -> BatchlineError | None:
    """The error to stop the controller with, or None when trying again may help."""
    if isinstance(exc, ComfyAuthError | LeaseTakenError):
        return exc
    if not isinstance(exc, LedgerWriteError):
        return None
    unwritable = next((e for e in sqlite_errors(exc) if primary_code(e) in UNWRITABLE), None)
    if unwritable is None:
        return exc
    return LedgerWriteError(
        f"cannot write the ledger {ledger_file} ({unwritable}): the controller stopped, and "
        "nothing it could not record was sent"
    )


def describe(exc: BaseException, ledger_file: Path) -> str:
    """One line saying what went wrong, naming the ledger file when SQLite failed."""
    failure = ledger_failure(exc, ledger_file)
    if failure is not None:
        return failure
    if isinstance(exc, BatchlineError):  # an expected condition: its message says it all
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class LoopHealth:
    """The local errors the controller's loops are retrying around, by loop name.

    ``failed`` logs an error the first time it is seen (with its traceback unless it is one
    of Batchline's own, such as a full output folder: it may be a bug; the status carries it to
    the user) and returns how long the loop waits before it starts again; ``ok`` clears a
    loop's error once it goes round again.
    """

    def __init__(self, first_s: float, max_s: float, ledger_file: Path) -> None:
        self._first_s, self._max_s, self._ledger_file = first_s, max_s, ledger_file
        self._failing: dict[str, tuple[str, Backoff]] = {}
        self._full: dict[str, Path] = {}  # loop -> the output folder it waits for room in
        self._logged: set[tuple[str, str]] = set()

    def failed(self, loop: str, exc: Exception) -> float:
        text = describe(exc, self._ledger_file)
        _, backoff = self._failing.get(loop) or ("", self._new_backoff())
        self._failing[loop] = (text, backoff)
        if isinstance(exc, OutputFolderBlocked):
            self._full[loop] = exc.folder
        else:
            self._full.pop(loop, None)
        delay = backoff.next_delay()
        if (loop, text) not in self._logged:
            self._logged.add((loop, text))
            trace = None if isinstance(exc, BatchlineError) else exc
            log.info("%s failed; trying again in %.1f s: %s", loop, delay, text, exc_info=trace)
        return delay

    def _new_backoff(self) -> Backoff:
        return Backoff(initial=self._first_s, cap=max(self._first_s, self._max_s))

    def ok(self, loop: str) -> bool:
        """Clear ``loop``'s error; whether it had one."""
        self._full.pop(loop, None)
        return self._failing.pop(loop, None) is not None

    @property
    def output_full(self) -> str:
        """The output folder a loop waits for room in; empty when none does."""
        return next((str(folder) for folder in self._full.values()), "")

    @property
    def message(self) -> str:
        """Each failing loop and its error, for the status; empty when all is well."""
        return "; ".join(f"{loop}: {text}" for loop, (text, _) in self._failing.items())

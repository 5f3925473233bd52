"""The controller lease: an OS file lock beside the ledger, held by at most one process."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import IO, TYPE_CHECKING, NoReturn

from core.errors import LeaseTakenError, LedgerError

if TYPE_CHECKING:
    from pathlib import Path


RETRY_S = 0.02


class ControllerLease:
    """Exclusive right to act as the controller of one ledger, for as long as it is held.

    The lock is the operating system's (``flock`` on POSIX, ``msvcrt.locking`` on Windows), so it
    is released by the OS when the holder dies, however it dies. The holder's pid is written into
    the lock file so a refused process can say who holds it.
    """

    def __init__(self, ledger_file: Path) -> None:
        self.path = ledger_file.with_name(ledger_file.name + ".controller.lock")
        self._handle: IO[str] | None = None

    @property
    def held(self) -> bool:
        return self._handle is not None

    def acquire(self, wait_s: float = 0.0) -> None:
        """Take the lease, or raise LeaseTakenError naming the holder's pid.

        ``wait_s``: keep trying that long first. A controller starting waits a moment, because
        a CLI command checking whether a controller runs holds the lock for an instant.
        """
        if self._handle is not None:
            return
        handle = self.path.open("a+", encoding="ascii")
        deadline = time.monotonic() + wait_s
        while not try_lock(handle):
            if time.monotonic() >= deadline:
                _refuse(handle)
            time.sleep(RETRY_S)
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._handle = handle

    def check_free(self) -> None:
        """Raise LeaseTakenError (naming the holder's pid) if another process holds the lease,
        LedgerError (naming the lock file) if it cannot be opened.

        For a command that only needs to know whether a controller runs: the lock is taken for
        an instant and let go at once, before the command works, so a controller starting
        meanwhile is not refused (it waits that instant, see ``acquire``).
        """
        if self._handle is not None:
            return
        try:
            handle = self.path.open("a+", encoding="ascii")
        except OSError as exc:  # the data folder deleted or moved away, or not writable
            raise LedgerError(f"cannot open {self.path}: {exc.strerror or exc}") from None
        with handle:
            if not try_lock(handle):
                _refuse(handle)
            unlock(handle)

    def taken(self) -> bool:
        """Whether another process holds the lease: a controller runs (``check_free``'s
        answer as a yes or no)."""
        try:
            self.check_free()
        except LeaseTakenError:
            return True
        return False

    def release(self) -> None:
        if self._handle is None:
            return
        with contextlib.suppress(OSError):
            self._handle.truncate(0)
        unlock(self._handle)
        self._handle.close()
        self._handle = None

    def __enter__(self) -> ControllerLease:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _refuse(handle: IO[str]) -> NoReturn:
    """Close ``handle`` and raise LeaseTakenError naming the pid the holder wrote there."""
    handle.seek(0)
    pid = handle.read().strip()
    handle.close()
    raise LeaseTakenError(int(pid) if pid.isdigit() else None)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows builds only
    import msvcrt

    def try_lock(handle: IO[str]) -> bool:
        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def unlock(handle: IO[str]) -> None:
        with contextlib.suppress(OSError):
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def try_lock(handle: IO[str]) -> bool:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def unlock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

"""Which windows watch a ledger: each holds an OS lock on a file of its own.

The operating system lets go of a lock however its holder dies, so a controller the app started
can tell that no window watches it any more (closed, crashed, killed) and stop once its work is
done, rather than run for ever. Files of windows that are gone are removed by whoever finds them.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from typing import IO, TYPE_CHECKING

from core.ledger.lease import try_lock, unlock

if TYPE_CHECKING:
    from pathlib import Path

FOLDER = "windows"


class WindowPresence:
    """This process's window on the ledger in ``ledger_folder``, while ``hold`` lasts."""

    def __init__(self, ledger_folder: Path) -> None:
        self.folder = ledger_folder / FOLDER
        self._handle: IO[str] | None = None
        self._path: Path | None = None

    def hold(self) -> None:
        if self._handle is not None:
            return
        self.folder.mkdir(mode=0o700, exist_ok=True)
        path = self.folder / f"{os.getpid()}-{uuid.uuid4().hex[:8]}.lock"
        part = path.with_suffix(".part")  # locked before it has the name others look for
        handle = part.open("a+", encoding="ascii")
        if not try_lock(handle):  # a fresh name: only a broken file system refuses
            handle.close()
            return
        os.replace(part, path)
        self._handle, self._path = handle, path

    def release(self) -> None:
        handle, path = self._handle, self._path
        self._handle = self._path = None
        if handle is None or path is None:
            return
        with contextlib.suppress(OSError):
            path.unlink()
        unlock(handle)
        handle.close()


def windows_open(ledger_folder: Path) -> bool:
    """Whether a window watches the ledger; the files of windows that are gone are removed."""
    found = False
    for path in (ledger_folder / FOLDER).glob("*.lock"):
        try:
            handle = path.open("a+", encoding="ascii")
        except OSError:
            continue
        with handle:
            if not try_lock(handle):
                found = True
                continue
            with contextlib.suppress(OSError):
                path.unlink()
            unlock(handle)
    return found

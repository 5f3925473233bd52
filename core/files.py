"""Files written beside the user's own: a temp part next to the wanted name, then a name at or
beside it that replaces nothing (a downloaded output, a grid sheet, a picked copy)."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

MAX_NAME_TRIES = 1000
COMPARE_CHUNK = 1024 * 1024


def place(part: Path, dest: Path) -> Path:
    """Give the complete file ``part`` a name at or beside ``dest`` without replacing anything.

    The first of ``dest``, ``<stem>-2<suffix>``, ``<stem>-3<suffix>`` ... up to
    ``-MAX_NAME_TRIES`` that is free gets a hard link to ``part`` (created exclusively, so it
    appears complete and two writers never take the same name). A name held by anything (a
    link, even a dangling one, a folder, a socket) is taken; one whose plain file holds
    exactly the same bytes is reused instead: downloading the same picture again after a crash
    never leaves a second copy. The caller removes ``part`` afterwards when it is still there.

    Raises:
        FileExistsError: every name up to ``-MAX_NAME_TRIES`` is taken by another file.
    """
    for number in range(1, MAX_NAME_TRIES + 1):
        candidate = dest if number == 1 else dest.with_name(f"{dest.stem}-{number}{dest.suffix}")
        try:
            _link_exclusively(part, candidate)
        except FileExistsError:
            if _same_bytes(part, candidate):
                return candidate
            continue
        return candidate
    raise FileExistsError(f"{dest}: this name and {MAX_NAME_TRIES - 1} numbered ones are taken")


def _link_exclusively(part: Path, candidate: Path) -> None:
    """Create ``candidate`` as ``part``; FileExistsError when the name is taken.

    Where the file system has no hard links (FAT, some network shares), the name is first
    claimed with an exclusive empty file that the complete part then replaces.
    """
    try:
        os.link(part, candidate)
    except FileExistsError:
        raise
    except OSError:
        os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        os.replace(part, candidate)


def _same_bytes(part: Path, other: Path) -> bool:
    """Whether ``other`` is a plain file (not a link to one) holding exactly ``part``'s bytes."""
    try:
        found = other.lstat()
        if not stat.S_ISREG(found.st_mode) or found.st_size != part.stat().st_size:
            return False
        theirs_fd = os.open(other, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with part.open("rb") as mine, os.fdopen(theirs_fd, "rb") as theirs:
            while chunk := mine.read(COMPARE_CHUNK):
                if chunk != theirs.read(COMPARE_CHUNK):
                    return False
    except OSError:
        return False
    return True


def open_part(dest: Path) -> tuple[Path, BinaryIO]:
    """A new temp file next to ``dest`` (same file system), with the user's normal file mode;
    whatever holds ``dest`` itself (a folder, a link) is left to ``place``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        part = dest.with_name(f".{dest.name}.{secrets.token_hex(6)}.part")
        try:
            fd = os.open(part, flags, 0o666)
        except FileExistsError:
            continue
        return part, os.fdopen(fd, "wb")


def write_new(dest: Path, write: Callable[[Path], object]) -> Path:
    """Have ``write`` fill a temp file in ``dest``'s folder, then give it ``dest``'s name or the
    next free one (see ``place``); the path it got. The file has the
    user's normal file mode, as a downloaded picture has."""
    part, handle = open_part(dest)
    handle.close()
    try:
        write(part)
        return place(part, dest)
    finally:
        with contextlib.suppress(OSError):
            part.unlink()

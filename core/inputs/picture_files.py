"""Which files "one job per picture" takes: a folder's pictures, a glob's, or one file."""

from __future__ import annotations

import glob
from pathlib import Path

from natsort import natsorted, ns

from core.errors import InputError

PICTURE_SUFFIXES = frozenset(
    {".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif", ".tif", ".tiff", ".avif", ".heic"}
)
_GLOB_CHARS = frozenset("*?[")


def picture_paths(where: str | Path) -> list[Path]:
    """The picture files ``where`` names, in natural order (``render2`` before ``render10``).

    ``where`` is a folder (its picture files by suffix, not those of subfolders; hidden files
    skipped), a glob (``renders/*.png``: every file it matches, hidden ones only when the
    pattern names them) or one file (taken whatever its suffix: adding it checks it).

    Raises:
        InputError: nothing matches (naming ``where``).
    """
    text = str(where)
    path = Path(text).expanduser()
    if path.is_dir():
        found = [
            entry
            for entry in path.iterdir()
            if not entry.name.startswith(".")
            and entry.suffix.lower() in PICTURE_SUFFIXES
            and entry.is_file()
        ]
        if not found:
            raise InputError(f"{text}: the folder holds no picture files")
        return _natural(found)
    if path.is_file():
        return [path]
    if _GLOB_CHARS & set(text):
        matches = [Path(m) for m in glob.glob(str(path), recursive=True)]
        found = [m for m in matches if m.is_file()]
        if not found:
            raise InputError(f"{text}: no file matches")
        return _natural(found)
    raise InputError(f"{text}: no such file or folder")


def _natural(paths: list[Path]) -> list[Path]:
    """In natural order (numbers by value, case folded, by path part): the same on every
    machine, whatever its locale."""
    return list(natsorted(paths, alg=ns.PATH | ns.IGNORECASE))

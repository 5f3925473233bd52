"""Real small file systems for tests: a tmpfs that can be filled up or made read-only.

Mounting needs root (the suite runs as root here and in CI); elsewhere the tests using these
are skipped, saying why.
"""

from __future__ import annotations

import contextlib
import errno
import subprocess
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "1m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``folder`` (created), unmounted afterwards."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def read_only(folder: Path) -> None:
    """Remount the small disk at ``folder`` read-only (root cannot write to it either)."""
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Fill the disk holding ``folder`` to the last byte; returns the filler file."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as handle:
        for size in (65536, 4096, 1):
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
    return filler

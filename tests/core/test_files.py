"""core.files: a new file beside the user's own, never over one."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from core.files import write_new

if TYPE_CHECKING:
    from pathlib import Path


def test_a_picture_written_new_has_the_users_normal_file_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        (tmp_path / "pick.png").write_bytes(b"taken")
        written = write_new(tmp_path / "pick.png", lambda part: part.write_bytes(b"mine"))
    finally:
        os.umask(umask)
    assert written == tmp_path / "pick-2.png"  # the taken name is left alone
    assert written.read_bytes() == b"mine"
    assert stat.S_IMODE(written.stat().st_mode) == 0o644  # as a downloaded picture, not 0600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pick-2.png", "pick.png"]

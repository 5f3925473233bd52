"""A system trash of the test's own: the Freedesktop trash under a temporary $XDG_DATA_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest
from send2trash import plat_other


def use_trash(monkeypatch: pytest.MonkeyPatch, data_home: Path) -> Path:
    """Send the trash to ``data_home``/Trash for this test (the library reads $XDG_DATA_HOME
    when it is imported, so its two constants are set too); returns the trash's files folder."""
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    monkeypatch.setattr(plat_other, "XDG_DATA_HOME", bytes(data_home))
    monkeypatch.setattr(plat_other, "HOMETRASH_B", bytes(data_home / "Trash"))
    return data_home / "Trash" / "files"

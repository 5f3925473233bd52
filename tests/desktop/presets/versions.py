"""One workflow at several numbers of steps, as files a preset's versions are dropped from, and
what the composer shows of an input."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.desktop.conftest import TXT2IMG

if TYPE_CHECKING:
    from pathlib import Path

    from desktop.window.main_window import MainWindow


def grey_foxes(tmp_path: Path, *steps: int) -> list[Path]:
    """The same workflow at each number of ``steps``, one file each, all named fox.json."""
    base = TXT2IMG.read_text(encoding="utf-8").replace("red fox", "grey fox")
    files = []
    for n, count in enumerate(steps):
        path = tmp_path / f"v{n}" / "fox.json"
        path.parent.mkdir()
        path.write_text(base.replace('"steps": 20', f'"steps": {count}'), encoding="utf-8")
        files.append(path)
    return files


def shown_value(window: MainWindow, ref: str) -> float:
    editors = window.composer.parameters_box.editors
    return next(editor.value() for p, editor in editors if str(p.ref) == ref)

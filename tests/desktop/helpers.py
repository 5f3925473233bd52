"""Helpers for desktop tests: drag-and-drop stubs, answering a question (the ledger's job
stories, running, failing and succeeding a job, are `tests.core.helpers`)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, QUrl
from PySide6.QtWidgets import QApplication, QInputDialog, QLabel, QMessageBox

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from PySide6.QtWidgets import QWidget


class StubMime:
    """What dropEvent reads from a QMimeData: the URLs (napari's stub-event pattern)."""

    def __init__(self, paths: list[Path]) -> None:
        self._urls = [QUrl.fromLocalFile(str(p)) for p in paths]

    def hasUrls(self) -> bool:
        return bool(self._urls)

    def urls(self) -> list[QUrl]:
        return self._urls


class StubDropEvent:
    """A drop (or drag-enter) event over real files, recording whether it was accepted."""

    def __init__(self, paths: list[Path]) -> None:
        self._mime = StubMime(paths)
        self.accepted = False

    def mimeData(self) -> StubMime:
        return self._mime

    def acceptProposedAction(self) -> None:
        self.accepted = True

    def ignore(self) -> None:
        self.accepted = False


def answer_question(button: QMessageBox.StandardButton, asked: list[str]) -> None:
    """Press ``button`` in the modal question the next action opens (its text noted in
    ``asked``); call it just before that action."""

    def press() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        asked.append(box.text())
        box.button(button).click()

    QTimer.singleShot(0, press)


async def until(predicate: Callable[[], bool], seconds: float = 10.0) -> None:
    """Let the event loop run until ``predicate`` holds (a failed assert after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.01)


def shown_ampersands(root: QWidget) -> list[str]:
    """The texts of labels under ``root`` that show a mnemonic's ``&`` itself (no buddy to
    take it); a literal ``&&`` aside."""
    return [
        label.text()
        for label in root.findChildren(QLabel)
        if "&" in label.text().replace("&&", "") and label.buddy() is None
    ]


def answer_name(text: str | None) -> None:
    """Type ``text`` into the name dialog (Name batch…) once it shows and press OK (None:
    Cancel)."""

    def fill() -> None:
        dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, QInputDialog)]
        visible = [d for d in dialogs if d.isVisible()]
        if not visible:
            QTimer.singleShot(10, fill)
            return
        if text is None:
            visible[0].reject()
        else:
            visible[0].setTextValue(text)
            visible[0].accept()

    QTimer.singleShot(10, fill)

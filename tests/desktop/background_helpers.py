"""Helpers for tests of the window as a client of its background controller."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from core.controller import Connection, ControllerConfig
from core.job_state import JobState
from core.ledger import Ledger
from tests.desktop.helpers import StubDropEvent

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.controller.published import Published
    from desktop.app.session import Session
    from desktop.window.main_window import MainWindow

FAST = ControllerConfig(poll_active_s=0.1, poll_idle_s=0.3, grace_s=0.5)


async def until(
    predicate: Callable[[], bool], seconds: float = 30.0, about: Callable[[], object] = str
) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, f"condition not reached in time: {about()}"
        await asyncio.sleep(0.02)


async def background_controller(session: Session) -> Published:
    """The session's background controller, once it runs and has connected."""
    assert session.controller is not None
    await until(
        lambda: (
            session.controller.running is not None
            and session.controller.status.connection == Connection.connected
        ),
        about=lambda: session.controller.status,
    )
    assert session.controller.running is not None
    return session.controller.running


def ledger_free(ledger: Ledger) -> bool:
    """Whether no controller holds the ledger's lease."""
    return not ledger.lease.taken()


def answer_close_dialog(button: str, asked: list[str]) -> None:
    """Click ``button`` in the close dialog once it shows (and note its question)."""

    def click() -> None:
        boxes = [
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, QMessageBox) and w.isVisible()
        ]
        if not boxes:
            QTimer.singleShot(20, click)
            return
        box = boxes[0]
        asked.append(box.text())
        chosen = [b for b in box.buttons() if b.text() == button]
        (chosen[0] if chosen else box.escapeButton()).click()

    QTimer.singleShot(20, click)


async def close_window(window: MainWindow, session: Session) -> None:
    """Close the window as the artist does: from Qt's event loop (a dialog it opens then runs
    its own loop outside any asyncio task), until the session knows what to do, or the
    window is hidden in the tray."""
    QTimer.singleShot(0, window.close)
    await until(lambda: session.finished.done() or not window.isVisible())


def queue_from_window(window: MainWindow, preset_file: Path, count: int) -> list[str]:
    window.dropEvent(StubDropEvent([preset_file]))
    window.composer.seeds.count.setValue(count)
    window.composer.queue_button.click()
    return [window.model.job_at(row).id for row in range(window.model.rowCount())]


def states(folder: Path, ids: list[str]) -> list[JobState]:
    with Ledger(folder) as ledger:
        return [ledger.job(job).state for job in ids]


def visible_windows() -> list[str]:
    return [w.windowTitle() for w in QApplication.topLevelWidgets() if w.isVisible()]


def app_started_controllers(home: Path, settle_s: float = 5.0) -> list[int]:
    """Pids of `batchline serve` processes the app started for ``home`` (Linux: /proc), once
    those that let go of the lease have had ``settle_s`` to exit."""
    deadline = time.monotonic() + settle_s
    while (found := _app_started(home)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def _app_started(home: Path) -> list[int]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in words and b"app" in words and str(home).encode() in words:
            found.append(int(cmdline.parent.name))
    return found

"""The tray icon, where the desktop has a tray: the batch's progress while Batchline works in
the background, "Open Batchline" and "Quit Batchline completely"; while the window is hidden,
the batch ends that no notification server showed (the controller tells each batch's end:
core/notify)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from core.batch.batch_counts import BatchCounts
from core.controller.status import Connection
from core.errors import BatchlineError
from core.ledger.settings import NOTIFY_DESKTOP
from desktop.common.icon import app_icon
from desktop.window.notifications import news_of

if TYPE_CHECKING:
    from core.controller.status import ControllerStatus
    from core.ledger import Ledger

REFRESH_MS = 1000


def tray_available() -> bool:
    return QSystemTrayIcon.isSystemTrayAvailable()


def tooltip_text(counts: BatchCounts, status: ControllerStatus) -> str:
    """One short line per fact: the jobs done of all, running, waiting, failed; the server
    when it is not answering; why the controller stopped."""
    lines = ["Batchline", *counts.tray_lines()]
    if status.stopped:
        lines.append("Not sending jobs: " + status.stopped)
    elif status.connection is Connection.offline and counts.active:
        lines.append("ComfyUI is not answering: the jobs wait")
    return "\n".join(lines)


class ProgressTray(QObject):
    """The tray icon over one ledger: its tooltip follows the jobs, and it says when they are
    all done while the window is hidden.

    Signals:
        open_requested(): "Open Batchline" (or a click on the icon).
        quit_all_requested(): "Quit Batchline completely".
    """

    open_requested = Signal()
    quit_all_requested = Signal()

    def __init__(self, ledger: Ledger, status: ControllerStatus, parent: Any = None) -> None:
        super().__init__(parent)
        self.ledger = ledger
        self.status = status
        self.icon = QSystemTrayIcon(app_icon(), self)
        self.menu = QMenu()
        self.open_action = self.menu.addAction("Open Batchline")
        self.open_action.triggered.connect(self.open_requested)
        self.menu.addSeparator()
        self.quit_action = self.menu.addAction("Quit Batchline completely")
        self.quit_action.triggered.connect(self.quit_all_requested)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self.announce_done = False  # set while the window is hidden
        self._counts = BatchCounts()
        self._counted_seq = -1  # the change feed's position the counts are from
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)

    def start(self) -> None:
        self.refresh()
        self.icon.show()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self.icon.hide()
        self.menu.deleteLater()

    def show_status(self, status: ControllerStatus) -> None:
        self.status = status

    @Slot()
    def refresh(self) -> None:
        seq = self.ledger.latest_seq()
        if seq != self._counted_seq:  # counting reads every job: only once some job changed
            self._counts, self._counted_seq = BatchCounts.read(self.ledger), seq
        counts = self._counts
        self.icon.setToolTip(tooltip_text(counts, self.status))
        if self.announce_done:  # the window's own notifier stopped with it
            for title, text in self.unshown():
                self.icon.showMessage(title, text)

    def unshown(self) -> list[tuple[str, str]]:
        """The batch ends no notification server showed, taken from the ledger (once)."""
        try:
            if not NOTIFY_DESKTOP.get(self.ledger):
                return []
            said = [news_of(self.ledger, r) for r in self.ledger.notices.take_tray()]
            return [(news.heading, news.text) for news in said]
        except BatchlineError:  # the ledger gone, busy, a setting broken: said elsewhere
            return []

    def say(self, title: str, message: str) -> None:
        self.icon.showMessage(title, message)

    @Slot(QSystemTrayIcon.ActivationReason)
    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (
            QSystemTrayIcon.ActivationReason.Trigger,
            QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            self.open_requested.emit()

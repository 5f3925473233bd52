"""Batch notifications: finished or failed, with counts; tray message or in-app banner."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QSystemTrayIcon

from desktop.common.batch_counts import BatchCounts

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtGui import QIcon

    from core.job_state import JobState
    from core.ledger import JobRecord


class BatchNotifier(QObject):
    """Watches jobs by batch and announces each batch once when all its jobs have ended.

    Signals:
        banner(str): an in-app message (used when no system tray shows messages).
    """

    banner = Signal(str)

    def __init__(
        self, icon: QIcon, parent: Any = None, title: Callable[[str], str] | None = None
    ) -> None:
        """``title`` names a batch in the notice (its id when not given)."""
        super().__init__(parent)
        self._title = title or str
        self._states: dict[str, dict[str, JobState]] = {}  # batch -> job -> state
        self._announced: set[str] = set()
        self._tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable() and QSystemTrayIcon.supportsMessages():
            self._tray = QSystemTrayIcon(icon, self)
            self._tray.show()

    def seed(self, jobs: list[JobRecord]) -> None:
        """Batches already over when the app starts are not announced again."""
        self._record(jobs)
        self._announced |= {b for b in self._states if self._counts(b).over}

    def _record(self, jobs: list[JobRecord]) -> set[str]:
        for job in jobs:
            self._states.setdefault(job.batch, {})[job.id] = job.state
        return {job.batch for job in jobs}

    @Slot(list)
    def observe(self, jobs: list[JobRecord]) -> list[str]:
        touched = self._record(jobs)
        over = [b for b in sorted(touched) if b not in self._announced and self._counts(b).over]
        for batch in over:
            self._announced.add(batch)
            self.announce(*self._counts(batch).finished_message(self._title(batch)))
        return over

    def _counts(self, batch: str) -> BatchCounts:
        return BatchCounts.of_states(Counter(self._states[batch].values()))

    @Slot(str, str)
    def announce(self, title: str, text: str) -> None:
        if self._tray is not None:
            self._tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, 8000)
        else:
            self.banner.emit(f"{title}: {text}")

"""Batch notifications: finished or failed, with counts; tray message or in-app banner."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QSystemTrayIcon

from core.job_state import JobState

if TYPE_CHECKING:
    from PySide6.QtGui import QIcon

    from core.ledger import JobRecord


def batch_message(batch: str, counts: Counter[JobState]) -> tuple[str, str]:
    """Title and text of the notice for a batch whose jobs have all ended."""
    done, failed = counts[JobState.succeeded], counts[JobState.failed]
    cancelled = counts[JobState.cancelled]
    title = f"Batch {batch} failed" if failed and not done else f"Batch {batch} finished"
    parts = [f"{done} succeeded"]
    if failed:
        parts.append(f"{failed} failed")
    if cancelled:
        parts.append(f"{cancelled} cancelled")
    return title, ", ".join(parts)


class BatchNotifier(QObject):
    """Watches jobs by batch and announces each batch once when all its jobs have ended.

    Signals:
        banner(str): an in-app message (used when no system tray shows messages).
    """

    banner = Signal(str)

    def __init__(self, icon: QIcon, parent: Any = None) -> None:
        super().__init__(parent)
        self._states: dict[str, dict[str, JobState]] = {}
        self._announced: set[str] = set()
        self._tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable() and QSystemTrayIcon.supportsMessages():
            self._tray = QSystemTrayIcon(icon, self)
            self._tray.show()

    def seed(self, jobs: list[JobRecord]) -> None:
        """Batches already over when the app starts are not announced again."""
        self._record(jobs)
        self._announced |= {b for b, states in self._states.items() if _over(states)}

    def _record(self, jobs: list[JobRecord]) -> set[str]:
        for job in jobs:
            self._states.setdefault(job.batch, {})[job.id] = job.state
        return {job.batch for job in jobs}

    @Slot(list)
    def observe(self, jobs: list[JobRecord]) -> list[str]:
        touched = self._record(jobs)
        over = [b for b in sorted(touched) if b not in self._announced and _over(self._states[b])]
        for batch in over:
            self._announced.add(batch)
            self.announce(*batch_message(batch, Counter(self._states[batch].values())))
        return over

    @Slot(str, str)
    def announce(self, title: str, text: str) -> None:
        if self._tray is not None:
            self._tray.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, 8000)
        else:
            self.banner.emit(f"{title}: {text}")


def _over(states: dict[str, JobState]) -> bool:
    return bool(states) and all(state.is_terminal for state in states.values())

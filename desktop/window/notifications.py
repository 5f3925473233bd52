"""Batch notices in the window: each batch over said once in the window's own banner, in the
words of the desktop's notification, and, where the controller found no notification server on
the desktop, its notice in the tray (in the banner where there is no tray, unless the banner
said it already).

The desktop's notification itself is the controller's (core/notify): it is sent once by the
controller that saw the batch end, with or without a window, so the window never sends one of
its own. When that controller found nothing that shows notifications, the ledger says so
(``no_server``); a window takes those (``BatchNoticeStore.take_tray``: once, whichever window)
and shows them as its tray's message (or in its banner where there is no tray).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QSystemTrayIcon

from core.batch.batch_counts import BatchCounts
from core.batch.batch_title import batch_title
from core.errors import BatchlineError
from core.ledger.settings import NOTIFY_DESKTOP
from core.notify.messages import BatchNews, EndState, end_of

if TYPE_CHECKING:
    from PySide6.QtGui import QIcon

    from core.job_state import JobState
    from core.ledger import JobRecord, Ledger
    from core.ledger.batch_notices import NoticeRecord

TRAY_CHECK_MS = 1000  # how often the ledger is asked for notices no notification server showed


class BatchNotifier(QObject):
    """Watches jobs by batch and says each batch once in the window when all its jobs ended;
    shows in the tray what the desktop could not.

    Signals:
        banner(str): an in-app message.
    """

    banner = Signal(str)

    def __init__(self, icon: QIcon, ledger: Ledger | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self.ledger = ledger
        self._states: dict[str, dict[str, JobState]] = {}  # batch -> job -> state
        self._announced: set[str] = set()
        self._bannered: set[str] = set()  # the batches whose end the banner said
        self._tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable() and QSystemTrayIcon.supportsMessages():
            self._tray = QSystemTrayIcon(icon, self)
            self._tray.show()
        self._timer = QTimer(self)
        self._timer.setInterval(TRAY_CHECK_MS)
        self._timer.timeout.connect(self.show_unshown)

    def start(self) -> None:
        """Take the notices no notification server showed, from now on."""
        if self.ledger is not None:
            self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

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
            self._bannered.add(batch)
            counts = self._counts(batch)
            end = end_of(counts) or EndState.finished
            self.banner.emit(BatchNews(batch, self._title(batch), end, counts, time.time()).line)
        return over

    def _title(self, batch: str) -> str:
        if self.ledger is None:
            return batch
        return batch_title(self.ledger, self.ledger.batch(batch))

    def _counts(self, batch: str) -> BatchCounts:
        return BatchCounts.of_states(Counter(self._states[batch].values()))

    @Slot()
    def show_unshown(self) -> list[str]:
        """Show in the tray each batch end no notification server showed; their ids."""
        if self.ledger is None:
            return []
        try:
            taken = self.ledger.notices.take_tray()
            said = [(r.batch_id, news_of(self.ledger, r)) for r in taken]
            shown = NOTIFY_DESKTOP.get(self.ledger)
        except BatchlineError:  # the ledger gone, busy, a setting broken: said elsewhere
            return []
        for batch, news in said if shown else []:
            if self._tray is not None:
                self._tray.showMessage(
                    news.heading, news.text, QSystemTrayIcon.MessageIcon.Information, 8000
                )
            elif batch not in self._bannered:
                self.banner.emit(news.line)
        return [record.batch_id for record in taken]


def news_of(ledger: Ledger, record: NoticeRecord) -> BatchNews:
    """What the desktop's notification would have said."""
    counts = BatchCounts.read(ledger, record.batch_id)
    state = EndState(record.ended_state or EndState.finished)
    title = batch_title(ledger, ledger.batch(record.batch_id))
    return BatchNews(record.batch_id, title, state, counts, record.ended_at or 0.0)

"""A batch's progress line: which batch, how many of its jobs are done, failed, running, about
how long the rest will take, and a bar that shows the succeeded, the failed (red) and the
cancelled jobs each as its own part: a batch whose every job failed is a red bar, not a full
one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QRect, QSignalBlocker, QSize, Qt, Signal, Slot
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from core.batch.batch_counts import BatchCounts

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent

    from core.ledger import JobRecord

FAILED_COLOUR = "#c9302c"  # the sheet's failed cells' red, a little brighter for a thin bar
CANCELLED_COLOUR = "#868e96"  # the sheet's cancelled cells' ink
TROUGH_COLOUR = "#dee2e6"  # the part not ended yet: seen on the window's grey


class CountsBar(QWidget):
    """A thin bar of the batch's jobs: the succeeded part in the highlight colour, then the
    failed in red, then the cancelled in grey; the rest (waiting, running) empty."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.counts = BatchCounts()
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(120, 8)

    def minimumSizeHint(self) -> QSize:
        return QSize(40, 8)

    def set_counts(self, counts: BatchCounts) -> None:
        self.counts = counts
        said = counts.progress_line(None) if counts.total else ""
        self.setAccessibleDescription(said)
        self.setToolTip(said)
        self.update()

    def parts(self) -> list[tuple[int, QColor]]:
        """Each part's width in pixels and its colour, left to right (empty ones left out)."""
        counts, width = self.counts, self.width()
        highlight = self.palette().color(QPalette.ColorRole.Highlight)
        shares = [
            (counts.succeeded, highlight),
            (counts.failed, QColor(FAILED_COLOUR)),
            (counts.cancelled, QColor(CANCELLED_COLOUR)),
        ]
        total = max(1, counts.total)
        parts, done = [], 0
        for n, colour in shares:
            if n:  # rounded on the running sum: the parts add up to the whole
                end = round(width * (done + n) / total)
                parts.append((end - round(width * done / total), colour))
                done += n
        return parts

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = self.rect()
        painter.fillRect(rect, QColor(TROUGH_COLOUR))
        x = rect.left()
        for width, colour in self.parts():
            painter.fillRect(QRect(x, rect.top(), width, rect.height()), colour)
            x += width
        painter.end()


class BatchProgress(QWidget):
    """The batch chooser (names where the batch has one), the counts and the bar.

    Signals:
        batch_chosen(str): the artist chose another batch ("" when there is none).
    """

    batch_chosen = Signal(str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.batch = QComboBox(self)
        self.batch.setAccessibleName("Batch shown")
        # Shrinks with a narrow pane (a long name is elided) rather than widening it.
        self.batch.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.batch.setMinimumContentsLength(10)
        self.batch.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.batch.setMaximumWidth(self.batch.fontMetrics().horizontalAdvance("M" * 24))
        self.summary = QLabel(self)
        self.summary.setAccessibleName("Batch progress")
        self.summary.setWordWrap(True)  # on its own line: read whole in a narrow pane
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.bar = CountsBar(self)
        self.bar.setAccessibleName("Batch done")
        row = QHBoxLayout()
        row.addWidget(self.batch, 1)
        row.addWidget(self.bar, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.summary)
        self._chosen: str | None = None
        self.batch.currentIndexChanged.connect(self._on_index)

    def current(self) -> str | None:
        return self.batch.currentData() or None

    def set_batches(self, batch_ids: list[str], names: dict[str, str], current: str | None) -> None:
        """List the batches, newest first; keep the shown one unless ``current`` says."""
        keep = current or self.current()
        wanted = [(names.get(b) or b, b) for b in reversed(batch_ids)]
        shown = [
            (self.batch.itemText(i), self.batch.itemData(i)) for i in range(self.batch.count())
        ]
        with QSignalBlocker(self.batch):
            if wanted != shown:
                self.batch.clear()
                for text, batch_id in wanted:
                    self.batch.addItem(text, batch_id)
                    self.batch.setItemData(
                        self.batch.count() - 1, f"{text} ({batch_id})", Qt.ItemDataRole.ToolTipRole
                    )
            if keep:
                self.batch.setCurrentIndex(max(0, self.batch.findData(keep)))
        self._on_index(self.batch.currentIndex())

    def show_jobs(self, jobs: list[JobRecord], seconds_left: float | None) -> None:
        """The counts of these jobs (the batch as queued, each by its latest "Retry smaller"
        copy: `BatchView.counted`)."""
        self.batch.setVisible(self.batch.count() > 0)
        self.bar.setVisible(bool(jobs))
        counts = BatchCounts.of_jobs(jobs)
        self.summary.setText(counts.progress_line(seconds_left) if jobs else "")
        self.bar.set_counts(counts)

    @Slot(int)
    def _on_index(self, _index: int) -> None:
        self.batch.setToolTip(self.batch.currentData(Qt.ItemDataRole.ToolTipRole) or "")
        if self.current() != self._chosen:
            self._chosen = self.current()
            self.batch_chosen.emit(self._chosen or "")

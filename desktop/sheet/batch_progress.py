"""A batch's progress line: which batch, how many of its jobs are done, failed, running, about
how long the rest will take, and a bar."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from desktop.common.batch_counts import BatchCounts

if TYPE_CHECKING:
    from core.ledger import JobRecord


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
        self.bar = QProgressBar(self)
        self.bar.setAccessibleName("Batch done")
        self.bar.setTextVisible(False)
        self.bar.setMaximumHeight(8)
        self.bar.setMinimumWidth(40)
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
        self.batch.setVisible(self.batch.count() > 0)
        self.bar.setVisible(bool(jobs))
        counts = BatchCounts.of_jobs(jobs)
        self.summary.setText(counts.progress_line(seconds_left) if jobs else "")
        self.bar.setMaximum(max(1, counts.total))
        self.bar.setValue(counts.finished)

    @Slot(int)
    def _on_index(self, _index: int) -> None:
        self.batch.setToolTip(self.batch.currentData(Qt.ItemDataRole.ToolTipRole) or "")
        if self.current() != self._chosen:
            self._chosen = self.current()
            self.batch_chosen.emit(self._chosen or "")

"""The filter bar above the jobs table: by state and by batch; how many jobs it shows, and what
the batch chosen shares."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QWidget

from core.job_state import JobState
from desktop.jobs.batch_names import batch_label
from desktop.jobs.job_states import state_label
from desktop.jobs.job_table_model import JobTableModel

if TYPE_CHECKING:
    from desktop.jobs.job_filter_proxy import JobFilterProxyModel

ACTIVE = (JobState.pending, JobState.queued, JobState.running, JobState.cancelling)
STATE_CHOICES: list[tuple[str, tuple[JobState, ...]]] = [
    ("All states", ()),
    ("Not finished", ACTIVE),
    *[(state_label(state), (state,)) for state in JobState],
]


class JobFilterBar(QWidget):
    """Two combo boxes driving a JobFilterProxyModel (over a JobTableModel); "N of M jobs",
    following the filter and the feed; the values every job of the chosen batch shares.

    Signals:
        described(str): the filter changed; what it is now, said short ("State = Failed",
            "" when it shows every job), for the views it does not filter (the pictures).
    """

    described = Signal(str)

    def __init__(self, proxy: JobFilterProxyModel, parent: Any = None) -> None:
        super().__init__(parent)
        self._proxy = proxy
        model = proxy.sourceModel()
        assert isinstance(model, JobTableModel)
        self._model = model
        self.states = QComboBox(self)
        self.states.setAccessibleName("Filter by state")
        for choice, _states in STATE_CHOICES:
            self.states.addItem(choice)
        self.states.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.states.setMinimumContentsLength(7)  # "Running"; longer choices are cut when narrow
        self.batch = QComboBox(self)
        self.batch.setAccessibleName("Filter by batch")
        self.batch.addItem("All batches", None)
        # Wide enough for a batch id when there is room, narrower on a small screen.
        self.batch.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.batch.setMinimumContentsLength(8)
        self.batch.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.batch.setMaximumWidth(self.batch.fontMetrics().horizontalAdvance("M" * 24))
        self.shared = QLabel(self)
        self.shared.setAccessibleName("Shared by every job of the batch")
        self.shared.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.count = QLabel(self)
        self.count.setAccessibleName("Jobs shown")
        self.count.setMinimumWidth(1)  # clipped rather than widening the pane
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for text, widget in (("S&tate", self.states), ("&Batch", self.batch)):
            label = QLabel(text, self)
            label.setBuddy(widget)
            layout.addWidget(label)
            layout.addWidget(widget)
        layout.addWidget(self.shared, 1)  # clipped (the whole line in its tooltip)
        layout.addWidget(self.count)
        self.states.currentIndexChanged.connect(self.on_states)
        self.batch.currentIndexChanged.connect(self.on_batch)
        # Counted once per turn of the event loop, however many rows a chunk of the feed moved.
        self._recount = QTimer(self)
        self._recount.setSingleShot(True)
        self._recount.setInterval(0)
        self._recount.timeout.connect(self.show_count)
        for signal in (proxy.rowsInserted, proxy.rowsRemoved, proxy.modelReset, model.rowsInserted):
            signal.connect(self._count_soon)
        proxy.filter_changed.connect(self.show_count)
        proxy.filter_changed.connect(lambda: self.described.emit(self.description()))
        model.loaded.connect(self.show_count)
        model.values_changed.connect(self.show_shared)

    def set_batches(self, batch_ids: list[str], names: dict[str, str] | None = None) -> None:
        """The batches to filter on, each shown by its title (its id in its tooltip)."""
        names = names or {}
        shown = {self.batch.itemData(i): i for i in range(1, self.batch.count())}
        for batch_id in batch_ids:
            label = names.get(batch_id) or batch_id
            if batch_id not in shown:
                self.batch.addItem(label, batch_id)
                shown[batch_id] = self.batch.count() - 1
            elif self.batch.itemText(shown[batch_id]) != label:
                self.batch.setItemText(shown[batch_id], label)
                if batch_id == self._proxy.batch:  # the filter's batch renamed
                    self.described.emit(self.description())
            tip = batch_label(batch_id, names.get(batch_id))
            self.batch.setItemData(shown[batch_id], tip, Qt.ItemDataRole.ToolTipRole)
        self.batch.setToolTip(self.batch.currentData(Qt.ItemDataRole.ToolTipRole) or "")

    def _count_soon(self, *_changed: Any) -> None:
        self._recount.start()

    @Slot()
    def show_count(self) -> None:
        """ "N of M jobs": the jobs the filter lets through, of all the ledger's read so far."""
        more = " (loading…)" if self._model.loading else ""
        shown, total = self._proxy.rowCount(), self._model.rowCount()
        self.count.setText(f"{shown:,} of {total:,} jobs{more}")

    def description(self) -> str:
        """The filter in words: "State = Failed · Batch = fox portraits"; "" when off."""
        parts = []
        if self._proxy.states:
            parts.append(f"State = {self.states.currentText()}")
        if self._proxy.batch is not None:
            parts.append(f"Batch = {self.batch.currentText()}")
        return " · ".join(parts)

    @Slot()
    def show_shared(self) -> None:
        """What every job of the chosen batch sets alike, once (none chosen: nothing)."""
        batch = self._proxy.batch
        line = self._model.batch_line(batch) if batch else ""
        self.shared.setText(line)
        self.shared.setToolTip(f"Every job of {batch} sets {line}" if line else "")

    @Slot(int)
    def on_states(self, index: int) -> None:
        self._proxy.set_states(STATE_CHOICES[index][1])

    @Slot(int)
    def on_batch(self, index: int) -> None:
        self.batch.setToolTip(self.batch.itemData(index, Qt.ItemDataRole.ToolTipRole) or "")
        self._proxy.set_batch(self.batch.itemData(index))
        self.show_shared()

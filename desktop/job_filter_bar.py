"""The filter bar above the jobs table: by state and by batch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QWidget

from core.job_state import JobState
from desktop.batch_names import batch_label
from desktop.job_states import state_label

if TYPE_CHECKING:
    from desktop.job_filter_proxy import JobFilterProxyModel

ACTIVE = (JobState.pending, JobState.queued, JobState.running, JobState.cancelling)
STATE_CHOICES: list[tuple[str, tuple[JobState, ...]]] = [
    ("All states", ()),
    ("Not finished", ACTIVE),
    *[(state_label(state), (state,)) for state in JobState],
]


class JobFilterBar(QWidget):
    """Two combo boxes driving a JobFilterProxyModel."""

    def __init__(self, proxy: JobFilterProxyModel, parent: Any = None) -> None:
        super().__init__(parent)
        self._proxy = proxy
        self.states = QComboBox(self)
        self.states.setAccessibleName("Filter by state")
        for choice, _states in STATE_CHOICES:
            self.states.addItem(choice)
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
        layout.addStretch(1)
        layout.addWidget(self.count)
        self.states.currentIndexChanged.connect(self.on_states)
        self.batch.currentIndexChanged.connect(self.on_batch)

    def set_batches(self, batch_ids: list[str], names: dict[str, str] | None = None) -> None:
        """The batches to filter on, each shown by its name (with its id) when it has one."""
        names = names or {}
        shown = {self.batch.itemData(i): i for i in range(1, self.batch.count())}
        for batch_id in batch_ids:
            label = batch_label(batch_id, names.get(batch_id))
            if batch_id not in shown:
                self.batch.addItem(label, batch_id)
            elif self.batch.itemText(shown[batch_id]) != label:
                self.batch.setItemText(shown[batch_id], label)

    def show_count(self, shown: int, total: int, loading: bool) -> None:
        more = " (loading…)" if loading else ""
        self.count.setText(f"{shown:,} of {total:,} jobs{more}")

    @Slot(int)
    def on_states(self, index: int) -> None:
        self._proxy.set_states(STATE_CHOICES[index][1])

    @Slot(int)
    def on_batch(self, index: int) -> None:
        self._proxy.set_batch(self.batch.itemData(index))

"""Filtering the jobs table by state and batch; sorting is passed down to the jobs model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, Signal

from desktop.jobs.job_table_model import JobTableModel

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.job_state import JobState


class JobFilterProxyModel(QSortFilterProxyModel):
    """Shows the jobs in the chosen states (all when none is chosen) of the chosen batch.

    Sorting (a header click) is done by the source model, which computes each row's key once;
    this proxy keeps the source's order.

    Signals:
        filter_changed(): the states or the batch chosen changed.
    """

    filter_changed = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._states: frozenset[JobState] = frozenset()
        self._batch: str | None = None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sourceModel().sort(column, order)

    def set_states(self, states: Iterable[JobState]) -> None:
        self.beginFilterChange()
        self._states = frozenset(states)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        self.filter_changed.emit()

    def set_batch(self, batch: str | None) -> None:
        self.beginFilterChange()
        self._batch = batch or None
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        self.filter_changed.emit()

    @property
    def states(self) -> frozenset[JobState]:
        return self._states

    @property
    def batch(self) -> str | None:
        return self._batch

    def filterAcceptsRow(
        self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex
    ) -> bool:
        if not self._states and self._batch is None:
            return True
        model = self.sourceModel()
        assert isinstance(model, JobTableModel)
        job = model.job_at(source_row)
        if self._states and job.state not in self._states:
            return False
        return self._batch is None or job.batch == self._batch

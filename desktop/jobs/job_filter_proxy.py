"""Filtering the jobs table by state and batch; sorting is passed down to the jobs model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt, Signal

from desktop.jobs.job_table_model import JobTableModel

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.job_state import JobState


class JobFilterProxyModel(QSortFilterProxyModel):
    """Shows the jobs in the chosen states (all when none is chosen) of the chosen batch, and
    the jobs let through whatever the filter (``let_through``: those the picture sheet
    selected, so that its selection is the table's).

    Sorting (a header click) is done by the source model, which computes each row's key once;
    this proxy keeps the source's order. While held (``hold``: the pointer is over the table)
    a row whose job changed stays shown even if the filter no longer takes it, until the hold
    ends: no row goes from under the pointer.

    Signals:
        filter_changed(): the states or the batch chosen changed.
    """

    filter_changed = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._states: frozenset[JobState] = frozenset()
        self._batch: str | None = None
        self._through: frozenset[str] = frozenset()
        self._held = False

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

    def let_through(self, job_ids: Iterable[str]) -> None:
        """Show these jobs whatever the filter (in place of those let through before)."""
        through = frozenset(job_ids)
        if through == self._through:
            return
        self.beginFilterChange()
        self._through = through
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    @property
    def filtered(self) -> bool:
        """Whether the filter hides any job (by state or batch)."""
        return bool(self._states) or self._batch is not None

    def hold(self, held: bool) -> None:
        """While held, changed jobs are not filtered again (see the class); then they are."""
        if held == self._held:
            return
        self._held = held
        self.setDynamicSortFilter(not held)
        if not held and self.filtered:
            self.beginFilterChange()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

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
        if job.id in self._through:
            return True
        if self._states and job.state not in self._states:
            return False
        return self._batch is None or job.batch == self._batch

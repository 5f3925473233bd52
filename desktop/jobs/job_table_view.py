"""The jobs table view: multi-select rows, a progress bar in the Progress column, the state's
columns first, then each varied input's of the batch in view; no row moves under the pointer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QItemSelection, QModelIndex, QPersistentModelIndex, Qt, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionProgressBar,
    QStyleOptionViewItem,
    QTableView,
)

from desktop.jobs.job_filter_proxy import JobFilterProxyModel
from desktop.jobs.job_table_model import (
    JOB_ROLE,
    PROGRESS_ROLE,
    STATE_COLUMNS,
    Column,
    JobTableModel,
)

if TYPE_CHECKING:
    from PySide6.QtGui import QEnterEvent, QHideEvent, QPainter

    from core.ledger import JobRecord


class ProgressDelegate(QStyledItemDelegate):
    """Paints a progress bar where the model gives a fraction under PROGRESS_ROLE."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        fraction = index.data(PROGRESS_ROLE)
        if fraction is None:
            super().paint(painter, option, index)
            return
        bar = QStyleOptionProgressBar()
        bar.rect = option.rect.adjusted(2, 3, -2, -3)
        bar.minimum, bar.maximum = 0, 100
        bar.progress = round(fraction * 100)
        bar.text = index.data() or ""
        bar.textVisible = True
        style = QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter)


_VALUE_MAX_CHARS = 24  # a long text value (a prompt) is cut here; numbers always fit whole


class JobTableView(QTableView):
    """A table of jobs; the model is a JobFilterProxyModel over a JobTableModel.

    The state's columns come first (State, Progress, In queue, Attempt, Elapsed, ⚠), then the
    value columns (one per varied input), then Reason, Batch and Job. The value columns are
    those of the batch in view: the batch filtered on (then the Batch column, the same in
    every row, is hidden); else the selected jobs' batches; else the batch the pictures show
    (``set_shown_batch``); else every batch's.

    While the pointer is over the table no row moves or goes (the model's and the proxy's
    hold): a running job that finishes keeps its row until the pointer leaves, so a click
    meant for it never lands on a job that took its place.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Jobs")
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setSortingEnabled(True)
        self.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.setAlternatingRowColors(True)
        self.setTabKeyNavigation(False)  # one Tab stop; the arrows move between rows
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(24)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self._progress = ProgressDelegate(self)
        self.setItemDelegateForColumn(Column.progress, self._progress)
        self._shown_batch: str | None = None
        self._value_batches: list[str] | None = None

    # --- no row moves under the pointer ----------------------------------------------------------

    def enterEvent(self, event: QEnterEvent) -> None:
        self._hold(True)
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self._hold(False)
        super().leaveEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:
        self._hold(False)  # another tab: nothing is under the pointer any more
        super().hideEvent(event)

    def _hold(self, held: bool) -> None:
        if isinstance(self.model(), JobFilterProxyModel):
            proxy, source = self._models()
            source.hold_order(held)
            proxy.hold(held)

    # --- columns ----------------------------------------------------------------------------------

    def size_columns(self) -> None:
        # Ids differ at their ends (job_20261130_0007): elide in the middle, never the end.
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.horizontalHeader()
        widths = {
            Column.state: 86,
            Column.progress: 80,
            Column.position: 62,
            Column.attempt: 56,
            Column.elapsed: 66,
            Column.warning: 28,
            Column.reason: 110,
            Column.batch: 150,
            Column.job: 138,
        }
        for column, width in widths.items():  # never narrower than the header's own text
            self.setColumnWidth(column, max(width, header.sectionSizeHint(column)))
        header.setSectionResizeMode(Column.reason, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(24)
        proxy, source = self._models()
        proxy.columnsInserted.connect(self._place_value_columns)
        proxy.filter_changed.connect(self.show_value_columns)
        source.values_changed.connect(self.show_value_columns)
        source.loaded.connect(self.show_value_columns)
        self.selectionModel().selectionChanged.connect(self._on_selection)
        if source.columnCount() > len(Column):
            self._place_value_columns(QModelIndex(), len(Column), source.columnCount() - 1)

    def _models(self) -> tuple[JobFilterProxyModel, JobTableModel]:
        proxy = self.model()
        assert isinstance(proxy, JobFilterProxyModel)
        source = proxy.sourceModel()
        assert isinstance(source, JobTableModel)
        return proxy, source

    @Slot(QModelIndex, int, int)
    def _place_value_columns(self, _parent: QModelIndex, first: int, last: int) -> None:
        """New value columns go after the state's columns, in the model's order (seeds
        first)."""
        header = self.horizontalHeader()
        after_state = header.visualIndex(STATE_COLUMNS[-1]) + 1
        for column in range(max(first, len(Column)), last + 1):
            header.moveSection(header.visualIndex(column), after_state + column - len(Column))
        self.show_value_columns()

    def set_shown_batch(self, batch: str | None) -> None:
        """The batch the pictures show: its value columns, when neither the filter nor the
        selection names a batch."""
        if batch != self._shown_batch:
            self._shown_batch = batch
            self.show_value_columns()

    def value_batches(self) -> list[str] | None:
        """The batches whose value columns are shown (None: every batch's)."""
        proxy, _source = self._models()
        if proxy.batch is not None:
            return [proxy.batch]
        selected = sorted({job.batch for job in self.selected_jobs()})
        if selected:
            return selected
        return [self._shown_batch] if self._shown_batch else None

    @Slot(QItemSelection, QItemSelection)
    def _on_selection(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        if self.value_batches() != self._value_batches:
            self.show_value_columns()

    @Slot()
    def show_value_columns(self) -> None:
        """Show the value columns of the batches in view (``value_batches``), each wide enough
        for its values in full (long text is cut)."""
        proxy, source = self._models()
        self.setColumnHidden(Column.batch, proxy.batch is not None)
        batches = self._value_batches = self.value_batches()
        if batches is None:
            shown = set(source.value_columns_of(None))
        else:
            shown = {c for batch in batches for c in source.value_columns_of(batch)}
        widest = self.fontMetrics().horizontalAdvance("M" * _VALUE_MAX_CHARS)
        for column in range(len(Column), source.columnCount()):
            self.setColumnHidden(column, column not in shown)
            if column in shown:
                self.resizeColumnToContents(column)
                self.setColumnWidth(column, min(self.columnWidth(column), widest))

    def selected_jobs(self) -> list[JobRecord]:
        rows = self.selectionModel().selectedRows() if self.selectionModel() else []
        return [index.data(JOB_ROLE) for index in sorted(rows, key=lambda i: i.row())]

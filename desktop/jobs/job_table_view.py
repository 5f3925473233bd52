"""The jobs table view: multi-select rows, a progress bar in the Progress column, each varied
input's column after the Batch column."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Slot
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
from desktop.jobs.job_table_model import JOB_ROLE, PROGRESS_ROLE, Column, JobTableModel

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter

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

    The value columns (one per varied input) stand right after the Batch column; filtered on
    one batch, only that batch's are shown, and not the Batch column (the same in every row);
    on all batches, every batch's.
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

    def size_columns(self) -> None:
        # Ids differ at their ends (job_20261130_0007): elide in the middle, never the end.
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.horizontalHeader()
        widths = {
            Column.job: 138,
            Column.batch: 150,
            Column.state: 86,
            Column.attempt: 56,
            Column.position: 62,
            Column.progress: 100,
            Column.elapsed: 66,
            Column.reason: 110,
            Column.warning: 28,
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
        """New value columns go after the Batch column, in the model's order (seeds first)."""
        header = self.horizontalHeader()
        after_batch = header.visualIndex(Column.batch) + 1
        for column in range(max(first, len(Column)), last + 1):
            header.moveSection(header.visualIndex(column), after_batch + column - len(Column))
        self.show_value_columns()

    @Slot()
    def show_value_columns(self) -> None:
        """Show the value columns of the batch filtered on (all of them on all batches), each
        wide enough for its values in full (long text is cut)."""
        proxy, source = self._models()
        self.setColumnHidden(Column.batch, proxy.batch is not None)
        shown = set(source.value_columns_of(proxy.batch))
        widest = self.fontMetrics().horizontalAdvance("M" * _VALUE_MAX_CHARS)
        for column in range(len(Column), source.columnCount()):
            self.setColumnHidden(column, column not in shown)
            if column in shown:
                self.resizeColumnToContents(column)
                self.setColumnWidth(column, min(self.columnWidth(column), widest))

    def selected_jobs(self) -> list[JobRecord]:
        rows = self.selectionModel().selectedRows() if self.selectionModel() else []
        return [index.data(JOB_ROLE) for index in sorted(rows, key=lambda i: i.row())]

"""The library's model: every picture a search finds across the batches, newest first, in the
contact sheet's cells (the same roles, painted by `SheetCellDelegate`).

Pictures are read a page at a time (``PAGE``, `core.pictures.search.page_after`) as the view
scrolls (``canFetchMore``/``fetchMore``), each page the one after the last picture read: a
library of 100,000 pictures is never read at once, and a page deep down is as quick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Slot

from core.batch.batch_title import batch_title
from core.ledger.marks import Mark
from core.pictures.pictures import Picture
from core.pictures.search import newer_than, page_after
from desktop.sheet.contact_sheet_model import (
    LABEL_LINES_ROLE,
    LIST_LABEL_LINES,
    MARK_ROLE,
    PATH_ROLE,
    PICTURE_ROLE,
    SHOWN_ROLE,
    STATUS_ROLE,
)
from desktop.sheet.sheet_batch import JobLabels

if TYPE_CHECKING:
    from pathlib import Path

    from PySide6.QtGui import QPixmap

    from core.ledger import Ledger
    from core.ledger.picture_index import PictureHit
    from desktop.common.thumbnails import ThumbnailLoader

    AnyIndex = QModelIndex | QPersistentModelIndex

PAGE = 100  # pictures read at a time, as the artist scrolls
HIT_ROLE = Qt.ItemDataRole.UserRole + 20  # the PictureHit


class LibraryModel(QAbstractListModel):
    """The pictures of one query (``set_query``), a page at a time; each cell's label is its
    batch's title and the job's values, its mark a badge. ``set_query`` raises InputError for
    a query that does not read, and keeps the pictures shown then."""

    def __init__(self, ledger: Ledger, thumbnails: ThumbnailLoader, parent: Any = None) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._thumbnails = thumbnails
        self.output_dir: Path | None = None
        self.query = ""
        self._hits: list[PictureHit] = []
        self._marks: dict[str, Mark] = {}
        self._names: dict[str, str] = {}  # batch id -> its title
        self._labels: dict[str, JobLabels] = {}  # batch id -> its jobs' values, as cells say
        self._rows_of_path: dict[str, list[int]] = {}
        self._more = False
        thumbnails.ready.connect(self.thumbnail_ready)

    # --- the query ------------------------------------------------------------------------------

    def set_query(self, query: str) -> None:
        """Show what ``query`` finds (its first page).

        Raises:
            InputError: the query cannot be read; the pictures shown stay.
        """
        first = page_after(self._ledger, query, None, limit=PAGE, output_dir=self.output_dir)
        self.beginResetModel()
        self.query = query
        self._hits, self._marks, self._rows_of_path = [], {}, {}
        self._names, self._labels = {}, {}  # read again: renamed, retried since
        self._more = True
        self._add(first)
        self.endResetModel()

    def reload(self) -> None:
        """Read the query again (pictures finished, marked or trashed since), as deep as now."""
        shown = max(len(self._hits), PAGE)
        self.set_query(self.query)
        while len(self._hits) < shown and self._more:
            self.fetchMore(QModelIndex())

    def canFetchMore(self, parent: AnyIndex) -> bool:
        return not parent.isValid() and self._more

    def fetchMore(self, parent: AnyIndex) -> None:
        if parent.isValid() or not self._more:
            return
        after = self._hits[-1].place if self._hits else None
        hits = page_after(self._ledger, self.query, after, limit=PAGE, output_dir=self.output_dir)
        if not hits:
            self._more = False
            return
        self.beginInsertRows(QModelIndex(), len(self._hits), len(self._hits) + len(hits) - 1)
        self._add(hits)
        self.endInsertRows()

    def add_newer(self) -> int:
        """Put the pictures finished since the newest shown above it (the library as they
        arrive); how many. Too many of them: the search is read again."""
        if not self._hits:
            self.reload()
            return len(self._hits)
        first = self._hits[0].place
        newer = newer_than(self._ledger, self.query, first, output_dir=self.output_dir)
        if newer is None:
            self.reload()
            return len(self._hits)
        if newer:
            self.beginInsertRows(QModelIndex(), 0, len(newer) - 1)
            self._hits[0:0] = newer
            for hit in newer:  # their batches read again: a retry added since, a new name
                self._names.pop(hit.batch_id, None)
            self._read_facts(newer)
            self._rows_of_path = {}
            for row, hit in enumerate(self._hits):
                self._rows_of_path.setdefault(str(hit.path), []).append(row)
            self.endInsertRows()
        return len(newer)

    def _add(self, hits: list[PictureHit]) -> None:
        start = len(self._hits)
        self._hits.extend(hits)
        self._read_facts(hits)
        for row, hit in enumerate(hits, start):
            self._rows_of_path.setdefault(str(hit.path), []).append(row)
        if not hits:
            self._more = False

    def _read_facts(self, hits: list[PictureHit]) -> None:
        """The marks of these pictures' jobs, their batches' titles and labels."""
        self._marks.update(self._ledger.marks.of([hit.job_id for hit in hits]))
        for hit in hits:
            if hit.batch_id not in self._names:
                self._names[hit.batch_id] = self._batch_name(hit.batch_id)
                self._labels[hit.batch_id] = JobLabels(self._ledger, hit.batch_id)

    def _batch_name(self, batch_id: str) -> str:
        return batch_title(self._ledger, self._ledger.batch(batch_id))

    # --- lookups --------------------------------------------------------------------------------

    def hits(self) -> list[PictureHit]:
        """The pictures read so far, in the library's order."""
        return list(self._hits)

    def pictures(self) -> list[Picture]:
        """The pictures read so far as the viewer steps through them."""
        return [Picture(hit.job_id, hit.path) for hit in self._hits]

    def hit_at(self, row: int) -> PictureHit | None:
        return self._hits[row] if 0 <= row < len(self._hits) else None

    def mark_of(self, job_id: str) -> Mark | None:
        return self._marks.get(job_id)

    def set_marks(self, job_ids: list[str], mark: Mark | None) -> None:
        """These jobs' new mark (set by the artist here): their cells' badges follow."""
        for job_id in job_ids:
            if mark is None:
                self._marks.pop(job_id, None)
            else:
                self._marks[job_id] = mark
        wanted = set(job_ids)
        for row, hit in enumerate(self._hits):
            if hit.job_id in wanted:
                self.dataChanged.emit(self.index(row), self.index(row))

    @Slot(str, str)
    def thumbnail_ready(self, source: str, _thumb: str) -> None:
        for row in self._rows_of_path.get(source, []):
            self.dataChanged.emit(self.index(row), self.index(row))

    # --- Qt model interface ---------------------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._hits)

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if self.hit_at(index.row()) is None or not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        hit = self.hit_at(index.row()) if index.isValid() else None
        if hit is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return self.label(hit)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            mark = self._marks.get(hit.job_id)
            said = {Mark.star: ", starred", Mark.reject: ", rejected"}.get(mark) if mark else ""
            return f"{self.label(hit)}{said or ''}"
        return self._cell_data(hit, role)

    def _cell_data(self, hit: PictureHit, role: int) -> Any:
        if role == HIT_ROLE:
            return hit
        if role == PICTURE_ROLE:
            return self._picture(hit)
        if role == STATUS_ROLE:
            return ("", "done")
        if role == MARK_ROLE:
            return self._marks.get(hit.job_id)
        if role == SHOWN_ROLE:
            return True
        if role == PATH_ROLE:
            return str(hit.path)
        if role == LABEL_LINES_ROLE:
            return LIST_LABEL_LINES
        return None

    def label(self, hit: PictureHit) -> str:
        """What a cell says: its batch's title and the job's values ("Fox · cfg 8 · seed 2")."""
        parts = (self._names[hit.batch_id], self._labels[hit.batch_id].get(hit.job_id))
        return " · ".join(part for part in parts if part)

    def _picture(self, hit: PictureHit) -> QPixmap | None:
        return self._thumbnails.pixmap(str(hit.path))

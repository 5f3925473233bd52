"""Small read-only table models over immutable records (attempts, transitions)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core.reason_texts import cause_text, reason_text

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from core.ledger import AttemptRecord, TransitionRecord

R = TypeVar("R")
RECORD_ROLE = Qt.ItemDataRole.UserRole


class RecordTableModel(QAbstractTableModel, Generic[R]):
    """Rows of records, columns given as (header, text function) pairs."""

    def __init__(
        self, columns: Sequence[tuple[str, Callable[[R], str]]], parent: Any = None
    ) -> None:
        super().__init__(parent)
        self._columns = list(columns)
        self._records: list[R] = []

    def set_records(self, records: Sequence[R]) -> None:
        self.beginResetModel()
        self._records = list(records)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._records)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        horizontal = orientation == Qt.Orientation.Horizontal
        if horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(self._columns):
            return self._columns[section][0]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._records):
            return None
        record = self._records[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return self._columns[index.column()][1](record)
        if role == RECORD_ROLE:
            return record
        return None


def clock(at: float | None) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at)) if at else ""


# What an artist reads first comes first; the prompt id (a uuid, for ComfyUI's own log) last.
ATTEMPT_COLUMNS: list[tuple[str, Callable[[AttemptRecord], str]]] = [
    ("#", lambda a: str(a.n)),
    ("Result", lambda a: a.result.value.capitalize() + (" (stalled)" if a.stalled else "")),
    ("Reason", lambda a: reason_text(a.reason)),
    ("Queued", lambda a: clock(a.queued_at)),
    ("Started", lambda a: clock(a.started_at)),
    ("Finished", lambda a: clock(a.finished_at)),
    ("Server", lambda a: a.server),
    ("Placed because", lambda a: a.placed_because),  # "gpu-1: its loaded model"
    ("Prompt id", lambda a: a.prompt_id),
]

TRANSITION_COLUMNS: list[tuple[str, Callable[[TransitionRecord], str]]] = [
    ("At", lambda t: clock(t.at)),
    ("#", lambda t: str(t.attempt)),  # the attempt, as in the attempts table
    # Where it came from is the row above (states only move forward): the room goes to the cause.
    ("State", lambda t: t.to_state.value.capitalize()),
    ("Cause", lambda t: cause_text(t.cause)),  # "oom" reads "out of memory"
]

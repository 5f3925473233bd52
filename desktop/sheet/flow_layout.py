"""A row of controls that wraps onto the next line when the pane is too narrow for it (at 200 %
scale, say), instead of pushing the pane wider than the window."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    """Items left to right at their size hints, wrapping as words do; hidden ones take no room.
    Its height follows its width (``heightForWidth``), so the layout around it makes room for
    a second line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        """One line of everything (what the row would like)."""
        shown = self._shown()
        width = sum(item.sizeHint().width() for item in shown)
        width += self.spacing() * max(0, len(shown) - 1)
        height = max((item.sizeHint().height() for item in shown), default=0)
        return QSize(width, height) + self._margins()

    def minimumSize(self) -> QSize:
        """The widest item alone: narrower than that, the row cannot wrap further."""
        size = QSize()
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        return size + self._margins()

    def _shown(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _margins(self) -> QSize:
        margins = self.contentsMargins()
        return QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _place(self, rect: QRect, *, move: bool) -> int:
        """Lay the items out in ``rect`` (``move``: really, else only measure); the height."""
        area = rect.marginsRemoved(self.contentsMargins())
        spacing = max(0, self.spacing())
        x, y, line = area.x(), area.y(), 0
        for item in self._shown():
            hint = item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, line = area.x(), y + line + spacing, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + spacing
            line = max(line, hint.height())
        margins = self.contentsMargins()
        return y + line - area.y() + margins.top() + margins.bottom()

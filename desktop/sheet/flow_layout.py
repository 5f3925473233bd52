"""A row of controls that wraps onto the next line when the pane is too narrow for it (at 200 %
scale, say), instead of pushing the pane wider than the window.

It is a widget that places its own children, not a ``QLayout``: a layout written in Python has
to keep the ``QLayoutItem`` objects Qt gives it, and Qt deletes those behind Python's back (the
window's crash "Internal C++ object (PySide6.QtWidgets.QWidgetItem) already deleted"). This row
keeps no reference to anything Qt owns: at every measure it asks Qt for its children as they are
now, so a control deleted, hidden or added in between simply is, or is not, among them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QSizePolicy, QWidget

if TYPE_CHECKING:
    from PySide6.QtCore import QChildEvent
    from PySide6.QtGui import QResizeEvent


class FlowRow(QWidget):
    """Its child widgets left to right at their size hints, in the order added, wrapping as words
    do; hidden ones take no room. Its height follows its width (``heightForWidth``), so the
    layout around it makes room for a second line."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._spacing = spacing
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def add(self, widget: QWidget) -> None:
        """``widget`` at the end of the row (it becomes the row's child)."""
        hidden = widget.isHidden()
        widget.setParent(self)
        if not hidden and self.isVisible():
            widget.show()  # a new parent hides it; a row already shown would not show it again
        self._relayout()

    def spacing(self) -> int:
        return self._spacing

    def shown(self) -> list[QWidget]:
        """The row's controls now shown (not hidden by the program), asked of Qt each time."""
        children = self.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
        return [child for child in children if not child.isHidden() and not child.isWindow()]

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def sizeHint(self) -> QSize:
        """One line of everything (what the row would like)."""
        shown = self.shown()
        width = sum(widget.sizeHint().width() for widget in shown)
        width += self._spacing * max(0, len(shown) - 1)
        height = max((widget.sizeHint().height() for widget in shown), default=0)
        return QSize(width, height) + self._margins()

    def minimumSizeHint(self) -> QSize:
        """The widest control alone: narrower than that, the row cannot wrap further."""
        size = QSize(0, 0)
        for widget in self.shown():
            size = size.expandedTo(widget.minimumSizeHint().expandedTo(widget.minimumSize()))
        return size + self._margins()

    def event(self, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.LayoutRequest, QEvent.Type.ChildRemoved):
            self._relayout()
        return super().event(event)

    def childEvent(self, event: QChildEvent) -> None:
        super().childEvent(event)
        if event.added() and event.child().isWidgetType():
            self._relayout()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place(self.rect(), move=True)

    def _relayout(self) -> None:
        self.updateGeometry()
        self._place(self.rect(), move=True)

    def _margins(self) -> QSize:
        margins = self.contentsMargins()
        return QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _place(self, rect: QRect, *, move: bool) -> int:
        """Lay the controls out in ``rect`` (``move``: really, else only measure); the height."""
        area = rect.marginsRemoved(self.contentsMargins())
        spacing = max(0, self._spacing)
        x, y, line = area.x(), area.y(), 0
        for widget in self.shown():
            hint = widget.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, line = area.x(), y + line + spacing, 0
            if move:
                widget.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + spacing
            line = max(line, hint.height())
        margins = self.contentsMargins()
        return y + line - area.y() + margins.top() + margins.bottom()

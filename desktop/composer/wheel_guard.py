"""Fields that take the mouse wheel only when they have focus: otherwise the form scrolls."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QWidget,
)

WHEEL_FIELDS = (QAbstractSpinBox, QComboBox, QAbstractSlider)


class WheelGuard(QObject):
    """An event filter passing wheel events over an unfocused field on to its scroll area."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget):
            return False
        if watched.hasFocus():
            return False
        area = _scroll_area_of(watched)
        if area is not None:
            QApplication.sendEvent(area.verticalScrollBar(), event)
        return True


def _scroll_area_of(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = parent.parentWidget()
    return parent


_GUARD: WheelGuard | None = None


def guard_wheel(root: QWidget) -> None:
    """Every spin box, combo box and slider under `root` (and `root` itself) takes the wheel
    only once focused (clicked or tabbed into)."""
    global _GUARD
    if _GUARD is None:
        _GUARD = WheelGuard()
    fields: list[Any] = [root, *root.findChildren(QWidget)]
    for field in fields:
        if isinstance(field, WHEEL_FIELDS) and not isinstance(field, QScrollBar):
            field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            field.removeEventFilter(_GUARD)
            field.installEventFilter(_GUARD)

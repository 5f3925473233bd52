"""A label floating over a widget, outside any layout: it moves nothing and catches no click."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QWidget


class Overlay(QLabel):
    """A label over ``host``, transparent to the mouse (a click lands on the control under it),
    hidden until shown; while shown it is placed again (``place``) when the host is resized."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self._host = host
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)  # names and paths as typed, "<" included
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        host.installEventFilter(self)
        self.hide()

    def place(self) -> None:
        """Set the geometry over the host (subclasses say where)."""
        raise NotImplementedError

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() == QEvent.Type.Resize and self.isVisible():
            self.place()
        return False

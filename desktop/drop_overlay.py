"""The drop target shown over the window while files it takes are dragged over it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QLabel, QWidget

_STYLE = (
    "background: rgba(13, 110, 253, 40); color: #0a3d91; font-size: 16pt; font-weight: bold;"
    " border: 3px dashed #0d6efd; border-radius: 12px;"
)


class DropOverlay(QLabel):
    """Covers ``host`` (following its size) with a dashed frame and what a drop would do."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self._host = host
        self.setAccessibleName("Drop target")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setStyleSheet(_STYLE)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        host.installEventFilter(self)
        self.hide()

    def show_for(self, text: str) -> None:
        self.setText(text)
        self.setGeometry(self._host.rect().adjusted(6, 6, -6, -6))
        self.show()
        self.raise_()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() == QEvent.Type.Resize and self.isVisible():
            self.setGeometry(self._host.rect().adjusted(6, 6, -6, -6))
        return False

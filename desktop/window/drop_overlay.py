"""The drop target shown over the window while files it takes are dragged over it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.window.overlay import Overlay

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

_STYLE = (
    "background: rgba(13, 110, 253, 40); color: #0a3d91; font-size: 16pt; font-weight: bold;"
    " border: 3px dashed #0d6efd; border-radius: 12px;"
)


class DropOverlay(Overlay):
    """Covers the host (following its size) with a dashed frame and what a drop would do."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.setAccessibleName("Drop target")
        self.setStyleSheet(_STYLE)

    def show_for(self, text: str) -> None:
        self.setText(text)
        self.place()
        self.show()
        self.raise_()

    def place(self) -> None:
        self.setGeometry(self._host.rect().adjusted(6, 6, -6, -6))

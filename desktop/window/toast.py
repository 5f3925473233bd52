"""A notice floating over the bottom of a widget: it moves nothing and catches no click."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Slot

from desktop.window.overlay import Overlay

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

NOTICE_STYLE = "background: #fff3cd; color: #5c4400; border: 1px solid #e0c97a;"
ERROR_STYLE = "background: #f8d7da; color: #58151c; border: 1px solid #d9a0a6;"
_STYLE = "padding: 8px 12px; border-radius: 6px;"
NOTICE_MS = 8000
ERROR_MS = 15000  # a refusal stays longer: the artist has to read why
_MARGIN = 12


class Toast(Overlay):
    """A notice over the host's bottom: shown for a while, then hidden."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.setAccessibleName("Notice")
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)

    def show_message(self, text: str, error: bool = False) -> None:
        self.setStyleSheet((ERROR_STYLE if error else NOTICE_STYLE) + _STYLE)
        self.setText(text)
        self.place()
        self.show()
        self.raise_()
        self._timer.start(ERROR_MS if error else NOTICE_MS)

    @Slot()
    def dismiss(self) -> None:
        self._timer.stop()
        self.hide()

    def place(self) -> None:
        """Centred at the bottom of the host, at most 60 % of its width."""
        host = self._host.rect()
        width = max(min(int(host.width() * 0.6), 640), min(host.width(), 200))
        self.setFixedWidth(width)
        self.adjustSize()
        x = (host.width() - width) // 2
        y = max(host.height() - self.height() - _MARGIN, 0)
        self.move(x, y)

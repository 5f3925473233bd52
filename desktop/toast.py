"""A notice floating over the bottom of a widget: it moves nothing and catches no click."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Slot
from PySide6.QtWidgets import QLabel, QWidget

NOTICE_STYLE = "background: #fff3cd; color: #5c4400; border: 1px solid #e0c97a;"
ERROR_STYLE = "background: #f8d7da; color: #58151c; border: 1px solid #d9a0a6;"
_STYLE = "padding: 8px 12px; border-radius: 6px;"
NOTICE_MS = 8000
ERROR_MS = 15000  # a refusal stays longer: the artist has to read why
_MARGIN = 12


class Toast(QLabel):
    """A label over ``host``, outside any layout: shown for a while, then hidden.

    It is transparent to the mouse, so a click meant for the control under it lands there.
    """

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self._host = host
        self.setWordWrap(True)
        self.setAccessibleName("Notice")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        host.installEventFilter(self)
        self.hide()

    def show_message(self, text: str, error: bool = False) -> None:
        self.setStyleSheet((ERROR_STYLE if error else NOTICE_STYLE) + _STYLE)
        self.setText(text)
        self._place()
        self.show()
        self.raise_()
        self._timer.start(ERROR_MS if error else NOTICE_MS)

    @Slot()
    def dismiss(self) -> None:
        self._timer.stop()
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() == QEvent.Type.Resize and self.isVisible():
            self._place()
        return False

    def _place(self) -> None:
        """Centred at the bottom of the host, at most 60 % of its width."""
        host = self._host.rect()
        width = max(min(int(host.width() * 0.6), 640), min(host.width(), 200))
        self.setFixedWidth(width)
        self.adjustSize()
        x = (host.width() - width) // 2
        y = max(host.height() - self.height() - _MARGIN, 0)
        self.move(x, y)

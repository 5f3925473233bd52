"""The application icon: resources/batchline.svg, or the same picture drawn with QPainter."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
ICON_FILE = RESOURCES / "batchline.svg"

# Three job bars (done, running, queued) and a dot, as in resources/batchline.svg.
_BARS = (("#c8f0cf", 176), ("#ffe69c", 132), ("#cfe2ff", 88))


def app_icon() -> QIcon:
    icon = QIcon(str(ICON_FILE)) if ICON_FILE.exists() else QIcon()
    if icon.isNull() or not icon.availableSizes():
        icon = QIcon(draw_icon(256))
    return icon


def draw_icon(size: int) -> QPixmap:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    scale = size / 256
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(scale, scale)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("#2b2d42"))
    painter.drawRoundedRect(QRectF(8, 8, 240, 240), 48, 48)
    for i, (colour, width) in enumerate(_BARS):
        painter.setBrush(QColor(colour))
        painter.drawRoundedRect(QRectF(40, 52 + 60 * i, width, 32), 10, 10)
    painter.setBrush(QColor("#6f42c1"))
    painter.drawEllipse(QRectF(178, 166, 44, 44))
    painter.end()
    return pixmap

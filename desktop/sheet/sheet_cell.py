"""How a contact sheet cell is painted: the picture (or what became of the job), its label
under it, a progress bar while it runs, a star or reject badge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from core.ledger.marks import Mark
from desktop.sheet.contact_sheet_model import (
    MARK_ROLE,
    PICTURE_ROLE,
    PROGRESS_ROLE,
    SHOWN_ROLE,
    STATUS_ROLE,
)

if TYPE_CHECKING:
    from PySide6.QtGui import QPixmap

PICTURE = 132  # the picture's square, in logical pixels
PAD = 6
_INK = {
    "muted": "#495057",
    "active": "#7a5a00",
    "failed": "#a4262c",
    "cancelled": "#868e96",
    "done": "#212529",
}
_PLACE = {
    "muted": "#e9ecef",
    "active": "#fff3cd",
    "failed": "#f8d7da",
    "cancelled": "#f1f3f5",
    "done": "#e9ecef",
}
_BADGE = {Mark.star: ("★", "#f0ad00"), Mark.reject: ("✕", "#a4262c")}


def cell_size(font_height: int) -> QSize:
    """A cell: the picture's square and one line of label under it."""
    return QSize(PICTURE + 2 * PAD, PICTURE + 2 * PAD + font_height + 4)


class SheetCellDelegate(QStyledItemDelegate):
    """Paints a ContactSheetModel cell; the same for the list and the grid."""

    def sizeHint(
        self, option: QStyleOptionViewItem, _index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        return cell_size(option.fontMetrics.height())

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        rect = option.rect
        if index.data(STATUS_ROLE) is None:
            return  # an empty place in a grid
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        text, kind = index.data(STATUS_ROLE)
        if kind == "cancelled" or index.data(SHOWN_ROLE) is False:
            painter.setOpacity(0.45)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(
                rect.adjusted(1, 1, -1, -1),
                option.palette.color(QPalette.ColorRole.Highlight).lighter(170),
            )
        line = option.fontMetrics.height() + 4  # the picture as large as the cell allows
        side = max(1, min(rect.width() - 2 * PAD, rect.height() - 2 * PAD - line))
        square = QRect(rect.left() + (rect.width() - side) // 2, rect.top() + PAD, side, side)
        picture: QPixmap | None = index.data(PICTURE_ROLE)
        if picture is not None and not picture.isNull():
            _draw_picture(painter, square, picture)
        else:
            painter.fillRect(square, QColor(_PLACE[kind]))
        if text:
            _draw_status(painter, option, square, text, kind, over_picture=picture is not None)
        progress = index.data(PROGRESS_ROLE)
        if progress is not None:
            _draw_progress(painter, square, progress)
        mark = index.data(MARK_ROLE)
        if mark is not None:
            _draw_badge(painter, option, square, mark)
        label = QRect(
            rect.left() + 2,
            square.bottom() + 3,
            rect.width() - 4,
            rect.bottom() - square.bottom() - 3,
        )
        painter.setPen(option.palette.color(QPalette.ColorRole.Text))
        elided = option.fontMetrics.elidedText(
            index.data() or "", Qt.TextElideMode.ElideRight, label.width()
        )
        painter.drawText(label, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, elided)
        if selected:
            pen = QPen(option.palette.color(QPalette.ColorRole.Highlight), 3)
            painter.setPen(pen)
            painter.setOpacity(1.0)
            painter.setBrush(Qt.BrushStyle.NoBrush)  # the badge's brush would fill the cell
            painter.drawRect(rect.adjusted(2, 2, -2, -2))
        painter.restore()


def _draw_picture(painter: QPainter, square: QRect, picture: QPixmap) -> None:
    size = (
        picture.deviceIndependentSize()
        .toSize()
        .scaled(square.size(), Qt.AspectRatioMode.KeepAspectRatio)
    )
    target = QRect(0, 0, size.width(), size.height())
    target.moveCenter(square.center())
    painter.drawPixmap(target, picture)


def _draw_status(
    painter: QPainter,
    option: QStyleOptionViewItem,
    square: QRect,
    text: str,
    kind: str,
    *,
    over_picture: bool,
) -> None:
    """The state in the square's middle; over a preview, on a strip at its top."""
    font = QFont(option.font)
    font.setBold(kind in ("failed", "active"))
    painter.setFont(font)
    if over_picture:
        strip = QRect(square.left(), square.top(), square.width(), option.fontMetrics.height() + 4)
        painter.fillRect(strip, QColor(255, 255, 255, 200))
        area = strip
    else:
        area = square.adjusted(6, 6, -6, -6)
    painter.setPen(QColor(_INK[kind]))
    flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
    painter.drawText(area, int(flags), text)
    painter.setFont(option.font)


def _draw_progress(painter: QPainter, square: QRect, fraction: float) -> None:
    """A bar along the square's bottom: filled to the fraction, or striped when unknown."""
    bar = QRect(square.left() + 4, square.bottom() - 9, square.width() - 8, 6)
    painter.fillRect(bar, QColor(0, 0, 0, 60))
    if fraction < 0:
        for x in range(bar.left(), bar.right(), 12):
            painter.fillRect(QRect(x, bar.top(), 6, bar.height()), QColor("#f0ad00"))
        return
    done = QRect(bar.left(), bar.top(), round(bar.width() * min(1.0, fraction)), bar.height())
    painter.fillRect(done, QColor("#f0ad00"))


def _draw_badge(painter: QPainter, option: QStyleOptionViewItem, square: QRect, mark: Mark) -> None:
    glyph, colour = _BADGE[mark]
    side = option.fontMetrics.height() + 6
    badge = QRect(square.right() - side - 2, square.top() + 2, side, side)
    painter.setOpacity(1.0)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(255, 255, 255, 230))
    painter.drawEllipse(badge)
    font = QFont(option.font)
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor(colour))
    painter.drawText(badge, int(Qt.AlignmentFlag.AlignCenter), glyph)
    painter.setFont(option.font)

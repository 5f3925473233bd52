"""How a contact sheet cell is painted: the picture (or what became of the job), its label
under it (on two lines when one is too narrow, a random 64-bit seed whole), a progress bar
while it runs, a star or reject badge, and a ring round the current cell while the sheet has
the keyboard focus."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from core.ledger.marks import Mark
from desktop.sheet.contact_sheet_model import (
    LABEL_LINES_ROLE,
    LIST_LABEL_LINES,
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
LABEL_SCALES = (1.0, 0.9, 0.8)  # then a smaller font, so that a long seed shows whole
FOCUS_COLOUR = "#1c1c1c"  # the focus ring: dark and dashed, unlike the selection's frame
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
_LAID_OUT = 4096  # labels a delegate keeps laid out (a few pages of a library)
_WORDS = 20_000  # word widths a font keeps measured


def cell_size(font_height: int, lines: int = LIST_LABEL_LINES) -> QSize:
    """A cell: the picture's square and ``lines`` of label under it (a grid's one: its edges
    say the values)."""
    return QSize(PICTURE + 2 * PAD, PICTURE + 2 * PAD + label_height(font_height, lines))


def label_height(font_height: int, lines: int = LIST_LABEL_LINES) -> int:
    return lines * font_height + 4


def label_lines(
    text: str, font: QFont, width: int, room: int = LIST_LABEL_LINES
) -> tuple[QFont, list[str]]:
    """How a label is written in ``width`` pixels: the font (the cell's, or a little smaller)
    and its lines, at most ``room``, broken between words. Only when the smallest font
    cannot hold it is the last line elided, in its middle (the tooltip and the accessible
    name have it whole)."""
    for scale in LABEL_SCALES:
        sized = QFont(font)
        if scale != 1.0:
            sized.setPointSizeF(font.pointSizeF() * scale)
        words = _Words.of(sized)
        lines = _wrapped(text, words, width)
        wide = any(words.metrics.horizontalAdvance(line) > width for line in lines)
        if len(lines) <= room and not wide:
            return sized, lines
    kept = lines[: room - 1]
    rest = " ".join(lines[room - 1 :])
    return sized, [*kept, words.metrics.elidedText(rest, Qt.TextElideMode.ElideMiddle, width)]


class _Words:
    """One font's metrics and the widths of the words measured in it: the words of labels
    repeat (a batch's title, "cfg", "seed"), and measuring is what laying one out costs."""

    _fonts: ClassVar[dict[str, _Words]] = {}

    def __init__(self, font: QFont) -> None:
        self.metrics = QFontMetricsF(font)  # not rounded: a line's words add up to it
        self._widths: dict[str, float] = {}
        self.space = self.width(" ")

    @classmethod
    def of(cls, font: QFont) -> _Words:
        key = font.key()
        found = cls._fonts.get(key)
        if found is None:
            found = cls._fonts[key] = cls(font)
        elif len(found._widths) > _WORDS:
            found._widths.clear()
        return found

    def width(self, word: str) -> float:
        found = self._widths.get(word)
        if found is None:
            found = self._widths[word] = self.metrics.horizontalAdvance(word)
        return found


def _wrapped(text: str, words: _Words, width: int) -> list[str]:
    """The text broken between words into lines no wider than ``width`` (a word wider than
    that alone on its line), by the words' widths (a line is measured whole after)."""
    lines: list[str] = []
    used = 0.0
    for word in text.split(" "):
        wide = words.width(word)
        if lines and used + words.space + wide <= width:
            lines[-1] = f"{lines[-1]} {word}"
            used += words.space + wide
        else:
            lines.append(word)
            used = wide
    return lines


class SheetCellDelegate(QStyledItemDelegate):
    """Paints a ContactSheetModel cell; the same for the list and the grid. Each label is laid
    out once for its font and width (`label_lines` measures it word by word: most of a cell's
    paint), then kept while the view scrolls by it."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._laid_out: dict[tuple[str, str, int, int], tuple[QFont, list[str]]] = {}

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        return cell_size(option.fontMetrics.height(), _room(index))

    def label_of(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> tuple[QFont, list[str]]:
        """The label's font and lines as this cell (``option.rect``) is painted with them."""
        text, width, room = index.data() or "", option.rect.width() - 4, _room(index)
        key = (text, option.font.key(), width, room)
        found = self._laid_out.get(key)
        if found is None:
            if len(self._laid_out) >= _LAID_OUT:
                self._laid_out.clear()
            found = self._laid_out[key] = label_lines(text, option.font, width, room)
        return found

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
        line = label_height(option.fontMetrics.height(), _room(index))  # the picture: the rest
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
        _draw_label(painter, option, label, *self.label_of(option, index))
        painter.setOpacity(1.0)
        painter.setBrush(Qt.BrushStyle.NoBrush)  # the badge's brush would fill the cell
        if selected:
            painter.setPen(QPen(option.palette.color(QPalette.ColorRole.Highlight), 3))
            painter.drawRect(rect.adjusted(2, 2, -2, -2))
        if option.state & QStyle.StateFlag.State_HasFocus:
            _draw_focus(painter, rect)
        painter.restore()


def _room(index: QModelIndex | QPersistentModelIndex) -> int:
    """The lines a cell's label has (`LABEL_LINES_ROLE`; one for an empty place)."""
    room = index.data(LABEL_LINES_ROLE)
    return room if isinstance(room, int) else 1


def _draw_label(
    painter: QPainter, option: QStyleOptionViewItem, area: QRect, font: QFont, lines: list[str]
) -> None:
    painter.setFont(font)
    painter.setPen(option.palette.color(QPalette.ColorRole.Text))
    flags = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
    painter.drawText(area, int(flags), "\n".join(lines))
    painter.setFont(option.font)


def _draw_focus(painter: QPainter, rect: QRect) -> None:
    """The keyboard's place: a dark dashed ring inside the cell, beside the selection's frame."""
    pen = QPen(QColor(FOCUS_COLOUR), 2, Qt.PenStyle.DashLine)
    painter.setPen(pen)
    painter.drawRect(rect.adjusted(5, 5, -5, -5))


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

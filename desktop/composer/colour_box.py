"""An integer input ComfyUI shows as a colour (``display: "color"``, 0xRRGGBB, such as
EmptyImage's): a spin box that reads and takes ``#RRGGBB``, with a swatch that opens the
colour picker. Being a QSpinBox, the composer reads, sets and follows it as any number."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import Slot
from PySide6.QtGui import QAction, QColor, QIcon, QPixmap, QValidator
from PySide6.QtWidgets import QColorDialog, QLineEdit, QSpinBox

from core.batch.varied import value_text

WHITE = 0xFFFFFF
_HEX = re.compile(r"#?([0-9A-Fa-f]{0,6})")
_SWATCH_PX = 16


def colour_value(text: str) -> int:
    """``#3399FF`` (the ``#`` optional, digits of either case) as 0x3399FF; 0 for none."""
    match = _HEX.fullmatch(text.strip())
    return int(match.group(1), 16) if match and match.group(1) else 0


def colour_state(text: str) -> QValidator.State:
    """Whether ``text`` is a colour as typed so far: six hex digits, fewer, or not one."""
    match = _HEX.fullmatch(text.strip())
    if match is None:
        return QValidator.State.Invalid
    full = len(match.group(1)) == 6
    return QValidator.State.Acceptable if full else QValidator.State.Intermediate


class ColourBox(QSpinBox):
    """0 to 0xFFFFFF, shown as ``#RRGGBB``; the swatch in the field opens a colour picker."""

    def __init__(self, value: int, parent: Any = None) -> None:
        super().__init__(parent)
        self.setRange(0, WHITE)
        self.setButtonSymbols(QSpinBox.ButtonSymbols.NoButtons)  # a step of 1 means nothing
        self.swatch = QAction(self)
        self.swatch.setToolTip("Choose a colour")
        self.swatch.triggered.connect(self.pick)
        self.lineEdit().addAction(self.swatch, QLineEdit.ActionPosition.LeadingPosition)
        self.valueChanged.connect(self._paint_swatch)
        self.setValue(value)
        self._paint_swatch(self.value())

    def textFromValue(self, value: int) -> str:
        return value_text(value, colour=True)

    def valueFromText(self, text: str) -> int:
        return colour_value(text)

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        return colour_state(text), text, pos

    @Slot()
    def pick(self) -> None:
        shown = QColor(value_text(self.value(), colour=True))
        colour = QColorDialog.getColor(shown, self, "Colour")
        if colour.isValid():
            self.setValue(colour.rgb() & WHITE)

    @Slot(int)
    def _paint_swatch(self, value: int) -> None:
        pixmap = QPixmap(_SWATCH_PX, _SWATCH_PX)
        pixmap.fill(QColor(value_text(value, colour=True)))
        self.swatch.setIcon(QIcon(pixmap))

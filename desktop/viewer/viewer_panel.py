"""The viewer's side panel: the picture's values (seed and grid values first) and the buttons
acting on it."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.batch.varied import value_text
from core.durations import duration_text
from core.ledger.marks import Mark
from core.reason_texts import reason_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from PySide6.QtGui import QAction

    from core.pictures.picture_facts import PictureFacts

PANEL_WIDTH = 260
_MARKS = {Mark.star: "★ Starred", Mark.reject: "✕ Rejected", None: "Not marked"}
_QUIET = "#666666"  # names and "not marked": quieter than the values, still readable
_MARK_COLOURS = {Mark.star: "#b8860b", Mark.reject: "#b02a37", None: _QUIET}


class ViewerPanel(QScrollArea):
    """The facts of the picture shown, then one button per action (rows of one or two); it
    scrolls rather than grows past a short screen."""

    def __init__(self, actions: Sequence[Sequence[QAction]], parent: Any = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFixedWidth(PANEL_WIDTH)
        body = QWidget(self)
        column = QVBoxLayout(body)
        self.seed = QLabel(body)
        self.seed.setAccessibleName("Seed")
        self.seed.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.seed.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        self.seed.setFont(font)
        self.seed.setWordWrap(True)
        self.seed.setTextFormat(Qt.TextFormat.RichText)
        self.mark = QLabel(body)
        self.mark.setAccessibleName("Mark")
        self.facts = _text_label(body, "Values")
        self.prompts = _text_label(body, "Prompts")
        column.addWidget(self.seed)
        column.addWidget(self.mark)
        column.addWidget(self.facts)
        column.addWidget(self._buttons(actions, body))
        column.addWidget(self.prompts)
        column.addStretch(1)
        self.setWidget(body)

    def _buttons(self, rows: Sequence[Sequence[QAction]], parent: QWidget) -> QWidget:
        box = QWidget(parent)
        grid = QGridLayout(box)
        grid.setContentsMargins(0, 4, 0, 4)
        grid.setSpacing(4)
        self.buttons: dict[str, QToolButton] = {}
        for r, row in enumerate(rows):
            for c, action in enumerate(row):
                button = QToolButton(box)
                button.setDefaultAction(action)
                button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
                button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
                grid.addWidget(button, r, c, 1, 2 // len(row))  # a row holds one or two
                self.buttons[action.objectName()] = button
        return box

    def show_facts(
        self, facts: PictureFacts | None, size: tuple[int, int] | None, where: str
    ) -> None:
        """Show ``facts`` (None: nothing), the picture's ``size`` once known, and ``where`` it
        is in its batch ("3 of 40 · batch_…")."""
        if facts is None:
            for label in (self.seed, self.mark, self.facts, self.prompts):
                label.clear()
            return
        varied = " · ".join(
            f"{facts.name(k)} {value_text(v, k in facts.colours)}" for k, v in facts.varied.items()
        )
        headline = html.escape(_seed_text(facts))
        if varied:  # what the grid varies, as prominent as the seed
            headline += f"<div style='font-size: 80%'>{html.escape(varied)}</div>"
        self.seed.setText(headline)
        self.show_mark(facts.mark)
        rows = [("size", f"{size[0]} × {size[1]} px" if size else "…")]
        if facts.seconds is not None:
            rows.append(("took", duration_text(facts.seconds)))
        state = facts.state.value + (f" ({reason_text(facts.reason)})" if facts.reason else "")
        rows += [("state", state), ("job", facts.job_id)]
        table = "".join(
            f"<tr><td style='color: {_QUIET}; padding-right: 8px'>{html.escape(name)}</td>"
            f"<td>{html.escape(value)}</td></tr>"
            for name, value in rows
        )
        self.facts.setText(f"<p>{html.escape(where)}</p><table>{table}</table>")
        self.prompts.setText(
            "".join(
                f"<p><b>{html.escape(title)}</b><br>{html.escape(text)}</p>"
                for title, text in facts.prompts
            )
        )

    def show_mark(self, mark: Mark | None) -> None:
        self.mark.setText(_MARKS[mark])
        self.mark.setStyleSheet(f"color: {_MARK_COLOURS[mark]}; font-weight: bold;")


def _seed_text(facts: PictureFacts) -> str:
    seeds = facts.seeds
    values = sorted(set(map(value_text, seeds.values())))
    if not values:
        return "No seed"
    if len(values) == 1:
        return f"Seed {values[0]}"
    return "Seeds " + ", ".join(f"{facts.name(k)} {value_text(v)}" for k, v in seeds.items())


def _text_label(parent: QWidget, name: str) -> QLabel:
    label = QLabel(parent)
    label.setAccessibleName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label

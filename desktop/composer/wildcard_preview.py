"""The composer's wildcards: for each text input holding wildcard syntax (``{a|b}``,
``__name__``), random (seeded by each job's seed) or every combination, how many texts it
gives and three of them, before anything is queued. A text past the limits shows the
refusal, never a hang."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QComboBox, QGridLayout, QGroupBox, QLabel, QWidget

from core.batch.wildcards import (
    COUNT_CEILING,
    MAX_EXPANSIONS,
    Template,
    WildcardMode,
    has_wildcards,
)
from core.errors import BatchlineError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from core.presets import Parameter

RANDOM, ALL = "random", "all"  # as the batch spec names the modes
EXAMPLES = 3
_ERROR_STYLE = "color: #a4262c;"
_EXAMPLE_STYLE = "color: #605e5c;"


class _Row:
    def __init__(self, label: QLabel, mode: QComboBox, count: QLabel, examples: QLabel) -> None:
        self.label, self.mode, self.count, self.examples = label, mode, count, examples
        self.expansions = 1  # texts in "every combination" mode (0: refused)

    def widgets(self) -> tuple[QWidget, ...]:
        return (self.label, self.mode, self.count, self.examples)


class WildcardPanel(QGroupBox):
    """One row per text input with wildcards; hidden when there is none.

    Signals:
        changed(): a mode changed (the count of jobs may too).
    """

    changed = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__("Wildcards", parent)
        self._grid = QGridLayout(self)
        self._grid.setColumnStretch(0, 1)
        self._rows: dict[str, _Row] = {}
        self._modes: dict[str, str] = {}  # kept across texts losing and regaining wildcards
        self.setVisible(False)

    def show_texts(
        self,
        texts: Mapping[str, tuple[Parameter, str]],
        folder: Path | None,
        seed: int,
    ) -> None:
        """Show the inputs of ``texts`` (``NODE.INPUT -> (parameter, text)``) that hold
        wildcards, expanded with the files of ``folder``."""
        wanted = {ref: pair for ref, pair in texts.items() if has_wildcards(pair[1])}
        for ref in list(self._rows):
            if ref not in wanted:
                for widget in self._rows.pop(ref).widgets():
                    self._grid.removeWidget(widget)
                    widget.hide()  # at once, not when the event loop next runs
                    widget.deleteLater()
        for ref, (parameter, text) in wanted.items():
            row = self._rows.get(ref) or self._add_row(ref, parameter)
            self._preview(ref, row, text, folder, seed)
        self.setVisible(bool(self._rows))

    def _add_row(self, ref: str, parameter: Parameter) -> _Row:
        label = QLabel(parameter.label, self)
        mode = QComboBox(self)
        mode.setAccessibleName(f"Wildcards of {parameter.label}")
        mode.addItem("random, by each job's seed", RANDOM)
        mode.addItem("every combination", ALL)
        mode.setCurrentIndex(max(0, mode.findData(self._modes.get(ref, RANDOM))))
        mode.currentIndexChanged.connect(self._mode_changed)
        count = QLabel(self)
        examples = QLabel(self)
        examples.setWordWrap(True)
        examples.setTextFormat(Qt.TextFormat.PlainText)
        examples.setAccessibleName(f"Wildcard examples of {parameter.label}")
        line = self._grid.rowCount()
        self._grid.addWidget(label, line, 0)
        self._grid.addWidget(mode, line, 1)
        self._grid.addWidget(count, line, 2)
        self._grid.addWidget(examples, line + 1, 0, 1, 3)
        row = self._rows[ref] = _Row(label, mode, count, examples)
        return row

    def _preview(self, ref: str, row: _Row, text: str, folder: Path | None, seed: int) -> None:
        label = row.label.text()
        mode = WildcardMode.combinatorial if row.mode.currentData() == ALL else WildcardMode.random
        try:
            template = Template(text, folder, where=label)
            count = template.count()
            if mode is WildcardMode.combinatorial and count > MAX_EXPANSIONS:
                more = "more than " if count >= COUNT_CEILING else ""
                raise BatchlineError(
                    f"{label} expands to {more}{count:,} prompts, more than {MAX_EXPANSIONS:,}"
                )
            examples = template.examples(mode, seed, EXAMPLES, salt=ref)
        except BatchlineError as exc:
            row.expansions = 0
            row.count.setText("refused")
            row.examples.setText(str(exc))
            row.examples.setStyleSheet(_ERROR_STYLE)
            return
        row.expansions = count if mode is WildcardMode.combinatorial else 1
        shown = f"{count:,}" if count < COUNT_CEILING else "too many"
        row.count.setText(f"{shown} combination{'s' if count != 1 else ''}")
        row.examples.setText("\n".join(f"e.g. {example}" for example in examples))
        row.examples.setStyleSheet(_EXAMPLE_STYLE)

    @Slot()
    def _mode_changed(self) -> None:
        for ref, row in self._rows.items():
            self._modes[ref] = str(row.mode.currentData())
        self.changed.emit()

    def modes(self) -> dict[str, str]:
        """``NODE.INPUT -> "random" | "all"`` of the inputs shown."""
        return {ref: str(row.mode.currentData()) for ref, row in self._rows.items()}

    def set_modes(self, modes: Mapping[str, Any]) -> None:
        """Choose the modes kept (for inputs shown now or later)."""
        self._modes = {str(k): str(v) for k, v in modes.items() if v in (RANDOM, ALL)}
        for ref, row in self._rows.items():
            row.mode.blockSignals(True)
            row.mode.setCurrentIndex(max(0, row.mode.findData(self._modes.get(ref, RANDOM))))
            row.mode.blockSignals(False)

    def job_factor(self) -> int:
        """How many jobs each grid point and seed makes (0 when a text is refused)."""
        total = 1
        for row in self._rows.values():
            total *= row.expansions
        return total

    def refusal(self) -> str:
        """The first refusal shown ("" when none)."""
        refused = (row.examples.text() for row in self._rows.values() if row.expansions == 0)
        return next(refused, "")

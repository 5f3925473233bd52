"""The composer's grid: any number of axes, each one input swept over its values (X the
columns, Y the rows, every further axis pages), axes of the same length walking together
(zipped) instead of multiplying."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout

from core.batch import GridAxis
from desktop.composer.axis_row import AxisKind, AxisRow, axis_caption

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtWidgets import QComboBox, QLineEdit

    from core.presets import Parameter

_ERROR_STYLE = "color: #a4262c;"
DEFAULT_AXES = 2  # X and Y shown when the grid is turned on


def _no_choices(parameter: Parameter) -> tuple[Any, ...]:
    return tuple(parameter.choices)


class GridEditor(QGroupBox):
    """A checkable group of axes ("Add axis", each removable).

    Signals:
        changed(): an axis, its values or a walk changed.
        rows_changed(): an axis was added or removed (the tab order follows).
    """

    changed = Signal()
    rows_changed = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__("Grid", parent)
        self.setCheckable(True)
        self.setChecked(False)
        self._parameters: list[Parameter] = []
        self._picture_refs: frozenset[str] = frozenset()
        self.choices_of: Callable[[Parameter], tuple[Any, ...]] = _no_choices
        self.rows: list[AxisRow] = []
        self._rows_box = QVBoxLayout()
        self.add_button = QPushButton("Add axis", self)
        self.add_button.setToolTip("Another input to vary: a third axis makes pages")
        self.add_button.clicked.connect(self.add_axis)
        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setAccessibleName("Grid summary")
        layout = QVBoxLayout(self)
        layout.addLayout(self._rows_box)
        bottom = QHBoxLayout()
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(self.add_button)
        layout.addLayout(bottom)
        self.toggled.connect(self._emit_changed)

    # --- the old X/Y names: the first two axes ------------------------------------------------

    @property
    def x_input(self) -> QComboBox:
        return self.rows[0].input

    @property
    def x_values(self) -> QLineEdit:
        return self.rows[0].line

    @property
    def y_input(self) -> QComboBox:
        return self.rows[1].input

    @property
    def y_values(self) -> QLineEdit:
        return self.rows[1].line

    # --- the axes -------------------------------------------------------------------------------

    def set_parameters(
        self, parameters: list[Parameter], pictures: frozenset[str] = frozenset()
    ) -> None:
        self._parameters = parameters
        self._picture_refs = pictures
        for row in self.rows:
            row.set_parameters(parameters, pictures)
        self._set_row_count(DEFAULT_AXES)
        self.setChecked(False)

    def _set_row_count(self, count: int) -> None:
        changed = len(self.rows) != count
        while len(self.rows) > count:
            row = self.rows.pop()
            self._rows_box.removeWidget(row)
            row.hide()  # at once: deleteLater waits for the event loop (or a menu's) to run
            row.deleteLater()
        while len(self.rows) < count:
            self._append_row()
        for row in self.rows:
            row.clear()
        self._renumber()
        if changed:
            self.rows_changed.emit()

    def _append_row(self) -> AxisRow:
        row = AxisRow(self._parameters, self._picture_refs, self.choices_of, self)
        row.changed.connect(self._emit_changed)
        row.remove_wanted.connect(self._remove_sender)
        self.rows.append(row)
        self._rows_box.addWidget(row)
        return row

    @Slot()
    def add_axis(self) -> AxisRow:
        row = self._append_row()
        self._renumber()
        self.setChecked(True)
        self.rows_changed.emit()
        self._emit_changed()
        return row

    def remove_axis(self, row: AxisRow) -> None:
        self.rows.remove(row)
        self._rows_box.removeWidget(row)
        row.hide()
        row.deleteLater()
        if not self.rows:
            self._append_row()
        self._renumber()
        self.rows_changed.emit()
        self._emit_changed()

    @Slot()
    def _remove_sender(self) -> None:
        row = self.sender()
        if isinstance(row, AxisRow) and row in self.rows:
            self.remove_axis(row)

    def _renumber(self) -> None:
        """Captions by place: an axis walking with the one above shares its place."""
        place = -1
        for index, row in enumerate(self.rows):
            row.set_index(index)
            walks = index > 0 and row.zip.isChecked()
            place += 0 if walks else 1
            row.caption.setText(f"{axis_caption(place)}{', walking together' if walks else ''}")

    def refresh_choices(self) -> None:
        """The servers' lists changed: offer them again (what is checked stays)."""
        for row in self.rows:
            row.offer_choices()

    def picture_axis(self, ref: str) -> AxisRow:
        """The axis over picture input ``ref``: the one there is, else a free one, else a new
        one."""
        self.setChecked(True)
        for row in self.rows:
            if row.input.currentData() == ref:
                return row
        row = next((r for r in self.rows if r.parameter() is None), None) or self.add_axis()
        row.choose(ref)
        return row

    def used_rows(self) -> list[AxisRow]:
        if not self.isChecked():
            return []
        return [row for row in self.rows if row.parameter() is not None]

    def groups(self) -> list[list[AxisRow]]:
        """The axes in walks: a row walking with the one above joins its group."""
        groups: list[list[AxisRow]] = []
        for row in self.used_rows():
            if groups and row.zip.isChecked():
                groups[-1].append(row)
            else:
                groups.append([row])
        return groups

    def axes(self) -> tuple[GridAxis, ...]:
        """The axes, picture axes with their files' paths (made job values at Queue)."""
        return tuple(GridAxis(row.input.currentData(), row.values()) for row in self.used_rows())

    def zips(self) -> tuple[tuple[str, ...], ...]:
        return tuple(
            tuple(row.input.currentData() for row in group)
            for group in self.groups()
            if len(group) > 1
        )

    def picture_inputs(self) -> frozenset[str]:
        """The inputs of the picture axes."""
        return frozenset(
            row.input.currentData() for row in self.used_rows() if row.kind is AxisKind.pictures
        )

    def walk_problem(self) -> str:
        """Why axes set to walk together cannot ("" when they can)."""
        for group in self.groups():
            lengths = {len(row.values()) for row in group}
            if len(lengths) > 1:
                said = ", ".join(f"{row.caption.text()} has {row.count_text()}" for row in group)
                return f"Axes that walk together need as many values: {said}"
        return ""

    def point_count(self) -> int:
        """How many grid points each seed gets (1 without a grid; 0 when a walk is uneven)."""
        if self.walk_problem():
            return 0
        return math.prod(len(group[0].values()) for group in self.groups())

    # --- memory ---------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The artist's choices, as JSON."""
        return {"on": self.isChecked(), "axes": [row.state() for row in self.rows]}

    def restore(self, state: dict[str, Any]) -> None:
        """Show choices ``state`` returned (or the older X/Y form); an input the preset no
        longer has is left unset."""
        axes = state.get("axes")
        if not isinstance(axes, list):  # the X/Y form before any number of axes
            axes = [
                _old_axis(state.get("x"), state.get("x_values")),
                _old_axis(state.get("y"), state.get("y_values")),
            ]
        self._set_row_count(max(1, len(axes)))
        for row, axis in zip(self.rows, axes, strict=False):
            if isinstance(axis, dict):
                row.restore(axis)
        self._renumber()
        self.setChecked(bool(state.get("on")))
        self._emit_changed()

    @Slot()
    def _emit_changed(self) -> None:
        self._renumber()
        problem = self.walk_problem()
        for row in self.rows:
            row.show_count(problem if row.zip.isChecked() and problem else "")
        groups = self.groups()
        if problem:
            self.summary.setText(problem)
            self.summary.setStyleSheet(_ERROR_STYLE)
        else:
            self.summary.setStyleSheet("")
            self.summary.setText(_summary(groups))
        self.changed.emit()


def _old_axis(ref: Any, values: Any) -> dict[str, Any]:
    text = str(values or "")
    return {
        "input": ref,
        "numbers": text,
        "texts": "\n".join(part.strip() for part in text.split("|")),
        "checked": [part.strip() for part in text.split(",") if part.strip()],
    }


def _summary(groups: list[list[AxisRow]]) -> str:
    if not groups:
        return ""
    parts = [" + ".join(row.count_text() for row in group) for group in groups]
    points = math.prod(len(group[0].values()) for group in groups)
    pages = ""
    if len(groups) > 2:
        count = math.prod(len(group[0].values()) for group in groups[2:])
        pages = f" on {count} page{'s' if count != 1 else ''}"
    return f"{' × '.join(parts)} = {points} point{'s' if points != 1 else ''}{pages}"

"""The composer's optional X/Y grid: one or two parameters, each swept over a list of values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLineEdit

from core.batch import GridAxis
from desktop.composer.parameter_editors import narrow, parse_values

if TYPE_CHECKING:
    from core.presets import Parameter


class GridEditor(QGroupBox):
    """A checkable group: when checked, X (and optionally Y) sweep parameters.

    Signals:
        changed(): the axes or their values changed.
    """

    changed = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__("X/Y grid", parent)
        self.setCheckable(True)
        self.setChecked(False)
        self._parameters: list[Parameter] = []
        self.x_input, self.x_values = self._axis("X")
        self.y_input, self.y_values = self._axis("Y")
        form = QFormLayout(self)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow("&X parameter", self.x_input)
        form.addRow("X values", self.x_values)
        form.addRow("&Y parameter", self.y_input)
        form.addRow("Y values", self.y_values)
        self.toggled.connect(self._emit_changed)

    def _axis(self, name: str) -> tuple[QComboBox, QLineEdit]:
        combo = QComboBox(self)
        narrow(combo)
        combo.setAccessibleName(f"Grid {name} parameter")
        values = QLineEdit(self)
        values.setAccessibleName(f"Grid {name} values")
        values.setPlaceholderText("comma-separated (text: separated by |)")
        combo.currentIndexChanged.connect(self._emit_changed)
        values.textChanged.connect(self._emit_changed)
        return combo, values

    def set_parameters(self, parameters: list[Parameter]) -> None:
        self._parameters = parameters
        for combo in (self.x_input, self.y_input):
            combo.blockSignals(True)
            combo.clear()
            combo.addItem("(none)", None)
            for parameter in parameters:
                combo.addItem(f"{parameter.node_title} · {parameter.ref.input}", str(parameter.ref))
            combo.blockSignals(False)
        self.x_values.clear()
        self.y_values.clear()
        self.setChecked(False)

    def state(self) -> dict[str, Any]:
        """The artist's choices, as JSON."""
        return {
            "on": self.isChecked(),
            "x": self.x_input.currentData(),
            "x_values": self.x_values.text(),
            "y": self.y_input.currentData(),
            "y_values": self.y_values.text(),
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Show choices `state` returned; a parameter the preset no longer has is left unset."""
        for combo, key in ((self.x_input, "x"), (self.y_input, "y")):
            combo.setCurrentIndex(max(0, combo.findData(state.get(key))))
        self.x_values.setText(str(state.get("x_values", "")))
        self.y_values.setText(str(state.get("y_values", "")))
        self.setChecked(bool(state.get("on")))

    def axes(self) -> tuple[GridAxis, ...]:
        if not self.isChecked():
            return ()
        axes = []
        for combo, values in ((self.x_input, self.x_values), (self.y_input, self.y_values)):
            parameter = self._parameter(combo.currentData())
            if parameter is not None:
                axes.append(GridAxis(str(parameter.ref), parse_values(values.text(), parameter)))
        return tuple(axes)

    def point_count(self) -> int:
        """How many grid points each seed gets (1 without a grid)."""
        total = 1
        for axis in self.axes():
            total *= len(axis.values)
        return total

    def _parameter(self, ref: str | None) -> Parameter | None:
        return next((p for p in self._parameters if str(p.ref) == ref), None)

    @Slot()
    def _emit_changed(self) -> None:
        self.changed.emit()

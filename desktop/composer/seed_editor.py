"""The composer's seed section: count from a start, an explicit list, or random seeds."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.batch import SeedMode, SeedPlan
from core.batch.varied import value_text
from core.presets import SeedInput
from desktop.composer.colour_box import colour_state, colour_value
from desktop.composer.parameter_editors import INT_LIMIT, narrow

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from PySide6.QtGui import QValidator

    from core.presets import Parameter

MODES = (
    (SeedMode.sequence, "Count from start"),
    (SeedMode.explicit, "Explicit list"),
    (SeedMode.random, "Random"),
)

DEFAULTS = {"count": 40, "start": 0, "step": 1}


class SeedPlanEditor(QGroupBox):
    """Collects a SeedPlan. With no seed input in the preset, seeds are kept (grid only).

    Signals:
        changed(): anything that may change the number of jobs.
        edited(): the start or the step changed (the number of jobs stays).
    """

    changed = Signal()
    edited = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__("Seeds", parent)
        self.mode = QComboBox(self)
        for mode, label in MODES:
            self.mode.addItem(label, mode.value)
        self._colours: frozenset[str] = frozenset()
        self.count = _spin(self, 1, 100_000, DEFAULTS["count"], "Number of seeds")
        self.start = _spin(self, 0, INT_LIMIT, DEFAULTS["start"], "First seed")
        self.step = _spin(self, 1, INT_LIMIT, DEFAULTS["step"], "Seed step")
        self.values = QLineEdit(self)
        self.values.setPlaceholderText("e.g. 1, 7, 42")
        self.values.setAccessibleName("Seed list")
        self.per_input = QCheckBox("A different seed for each seed input", self)
        self.inputs_box = QWidget(self)
        self._inputs_layout = QVBoxLayout(self.inputs_box)
        self._inputs_layout.setContentsMargins(0, 0, 0, 0)
        self.no_inputs = QLabel("No seed input: choose an integer input to vary, if any", self)
        self.no_inputs.setWordWrap(True)
        self.chosen = QComboBox(self.inputs_box)
        narrow(self.chosen)
        self.chosen.setAccessibleName("Input to vary")
        self.chosen.setToolTip("The integer input the seeds go to (as --seed-input on the CLI)")
        self._inputs_layout.addWidget(self.no_inputs)
        self._inputs_layout.addWidget(self.chosen)
        self._candidates: tuple[SeedInput, ...] = ()
        self._checks: list[tuple[SeedInput, QCheckBox]] = []
        self.mode.setAccessibleName("Seed mode")
        self._form = QFormLayout(self)
        for label, widget in (
            ("&Mode", self.mode),
            ("&Count", self.count),
            ("&Start", self.start),
            ("S&tep", self.step),
            ("&List", self.values),
            ("Varies", self.inputs_box),
            ("", self.per_input),
        ):
            self._form.addRow(label, widget)
        self.mode.currentIndexChanged.connect(self._mode_changed)
        self.start.valueChanged.connect(self.edited)
        self.step.valueChanged.connect(self.edited)
        for signal in (self.count.valueChanged, self.values.textChanged):
            signal.connect(self._emit_changed)
        self.per_input.toggled.connect(self._emit_changed)
        self.chosen.currentIndexChanged.connect(self._inputs_changed)
        self._inputs: tuple[SeedInput, ...] = ()
        self._inputs_changed()

    def set_inputs(
        self,
        inputs: tuple[SeedInput, ...],
        candidates: tuple[SeedInput, ...] = (),
        names: Mapping[str, str] | None = None,
        colours: frozenset[str] = frozenset(),
    ) -> None:
        """The preset's seed inputs; without any, `candidates` (its integer inputs) are offered
        for the artist to vary one of. Each is shown by its name in `names` (by `NODE_ID.INPUT`,
        ``core.presets.input_names``), its id in its tooltip; the start, step and list of one of
        ``colours`` (an integer ComfyUI shows as a colour) read ``#RRGGBB``."""
        names = names or {}
        self._colours = colours
        self._candidates = () if inputs else candidates
        self.chosen.blockSignals(True)
        self.chosen.clear()
        self.chosen.addItem("(none: jobs keep the workflow's values)", None)
        for seed in self._candidates:
            self.chosen.addItem(names.get(str(seed.ref), str(seed.ref)), str(seed.ref))
            self.chosen.setItemData(
                self.chosen.count() - 1, str(seed.ref), Qt.ItemDataRole.ToolTipRole
            )
        self.chosen.blockSignals(False)
        self.chosen.setVisible(bool(self._candidates))
        for _seed, check in self._checks:  # gone now, not when the event loop next runs (a
            self._inputs_layout.removeWidget(check)  # context menu's loop kept the old preset's
            check.hide()  # checkbox drawn beside the new one's)
            check.deleteLater()
        self._checks = []
        self._inputs = inputs
        for seed in inputs:
            name = names.get(str(seed.ref), str(seed.ref))
            check = QCheckBox(name, self.inputs_box)
            check.setChecked(True)
            check.setAccessibleName(f"Vary seed input {name}")
            check.setToolTip(f"{seed.ref} (as --seed-input on the CLI)")
            check.toggled.connect(self._inputs_changed)
            self._inputs_layout.addWidget(check)
            self._checks.append((seed, check))
        self.no_inputs.setVisible(not inputs)
        self._inputs_changed()

    def state(self) -> dict[str, Any]:
        """The artist's choices, as JSON."""
        return {
            "mode": self.mode.currentData(),
            "count": self.count.value(),
            "start": self.start.value(),
            "step": self.step.value(),
            "list": self.values.text(),
            "per_input": self.per_input.isChecked(),
            "varied": self.varied_refs(),
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Show choices `state` returned (for the same inputs); what it lacks is the default."""
        self.mode.setCurrentIndex(max(0, self.mode.findData(state.get("mode"))))
        for box, key in ((self.count, "count"), (self.start, "start"), (self.step, "step")):
            value = state.get(key)
            box.setValue(value if isinstance(value, int) else DEFAULTS[key])
        self.values.setText(str(state.get("list", "")))
        self.per_input.setChecked(bool(state.get("per_input")))
        varied = state.get("varied")
        for seed, check in self._checks:
            check.setChecked(not isinstance(varied, list) or str(seed.ref) in varied)
        chosen = varied[0] if isinstance(varied, list) and varied else None
        self.chosen.setCurrentIndex(max(0, self.chosen.findData(chosen)))

    def focus_chain(self) -> list[QWidget]:
        """Its fields in the order Tab walks them, top to bottom."""
        checks = [check for _seed, check in self._checks]
        fields = (self.mode, self.count, self.start, self.step, self.values)
        return [*fields, self.chosen, *checks, self.per_input]

    def varied(self) -> tuple[SeedInput, ...]:
        """The seed inputs the artist chose to vary (or the integer input chosen instead)."""
        if self._candidates:
            ref = self.chosen.currentData()
            return tuple(seed for seed in self._candidates if str(seed.ref) == ref)
        return tuple(seed for seed, check in self._checks if check.isChecked())

    def varied_refs(self) -> list[str]:
        return [str(seed.ref) for seed in self.varied()]

    def current_mode(self) -> SeedMode:
        return SeedMode(self.mode.currentData()) if self.varied() else SeedMode.keep

    def plan(self) -> SeedPlan:
        mode = self.current_mode()
        per_input = self.per_input.isChecked() and len(self.varied()) > 1
        if mode is SeedMode.keep:
            return SeedPlan(mode=mode, count=1)
        if mode is SeedMode.explicit:
            return SeedPlan(mode=mode, values=self.explicit_values(), per_input=per_input)
        if mode is SeedMode.random:
            return SeedPlan(mode=mode, count=self.count.value(), per_input=per_input)
        return SeedPlan(
            mode=mode,
            count=self.count.value(),
            start=self.start.value(),
            step=self.step.value(),
            per_input=per_input,
        )

    def explicit_values(self) -> tuple[int, ...]:
        if self._varies_colour():
            return tuple(
                colour_value(v) for v in re.findall(r"#?[0-9A-Fa-f]{6}", self.values.text())
            )
        return tuple(int(v) for v in re.findall(r"-?\d+", self.values.text()))

    def _varies_colour(self) -> bool:
        """The input varied is a colour (one varied of a preset without seed inputs)."""
        refs = self.varied_refs()
        return bool(refs) and all(ref in self._colours for ref in refs)

    def job_count(self) -> int:
        mode = self.current_mode()
        if mode is SeedMode.keep:
            return 1
        if mode is SeedMode.explicit:
            width = len(self.varied()) if self.per_input.isChecked() else 1
            return len(self.explicit_values()) // max(1, width)
        return self.count.value()

    @Slot()
    def _inputs_changed(self) -> None:
        varied = self.varied()
        self.per_input.setVisible(len(varied) > 1)
        for widget in (self.mode, self.count, self.start, self.step, self.values):
            widget.setEnabled(bool(varied))
        colour = self._varies_colour()
        for box in (self.start, self.step):
            box.show_colour(colour)
        self.values.setPlaceholderText("e.g. #FF0000, #3399FF" if colour else "e.g. 1, 7, 42")
        self._mode_changed()

    @Slot()
    def _mode_changed(self) -> None:
        mode = self.current_mode()
        self._form.setRowVisible(self.count, mode in (SeedMode.sequence, SeedMode.random))
        self._form.setRowVisible(self.start, mode is SeedMode.sequence)
        self._form.setRowVisible(self.step, mode is SeedMode.sequence)
        self._form.setRowVisible(self.values, mode is SeedMode.explicit)
        self.changed.emit()

    @Slot()
    def _emit_changed(self) -> None:
        self.changed.emit()


def integer_inputs(parameters: Iterable[Parameter]) -> tuple[SeedInput, ...]:
    """The integer inputs among `parameters`, as inputs seeds could go to."""
    return tuple(
        SeedInput(p.ref, int(p.minimum or 0), int(INT_LIMIT if p.maximum is None else p.maximum))
        for p in parameters
        if isinstance(p.value, int) and not isinstance(p.value, bool) and not p.choices
    )


class NumberBox(QSpinBox):
    """A whole number, shown as ``#RRGGBB`` while the input it goes to is a colour (3381759
    reads #3399FF, as the colour's own field shows it)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._colour = False

    def show_colour(self, colour: bool) -> None:
        if colour != self._colour:
            self._colour = colour
            self.lineEdit().setText(self.textFromValue(self.value()))

    def textFromValue(self, value: int) -> str:
        return value_text(value, colour=True) if self._colour else super().textFromValue(value)

    def valueFromText(self, text: str) -> int:
        return colour_value(text) if self._colour else super().valueFromText(text)

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        if self._colour:
            return colour_state(text), text, pos
        return super().validate(text, pos)


def _spin(parent: Any, low: int, high: int, value: int, name: str) -> NumberBox:
    box = NumberBox(parent)
    box.setRange(low, high)
    box.setValue(value)
    box.setAccessibleName(name)
    return box

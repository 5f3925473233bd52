"""Retry smaller: the artist chooses what to shrink (size, batch size) and by how much; the
dialog says what the failure asked for and what the server has, and proposes a step that fits
(or says that none of the kind will)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
)

from core.batch import SHRINK_BATCH, SHRINK_KINDS, SHRINK_SIZE, default_shrink, smaller_value
from core.batch.memory_told import MemoryTold, size_text

if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_PERCENT = 75
MIN_PERCENT = 0.01
_LABELS = {SHRINK_SIZE: "&Size (width × height)", SHRINK_BATCH: "&Batch size"}


def change_text(
    kind: str, values: Mapping[str, int], factor: float, memory: MemoryTold | None = None
) -> str:
    """``1024 → 768, 768 → 576`` (each input once), or why there is nothing to shrink; with
    what the failure told (``memory``): that no smaller batch size will fit, when even one
    picture needs more than the server has."""
    if not values:
        return "nothing to shrink in this workflow"
    if kind == SHRINK_BATCH and memory is not None and memory.has is not None:
        needed = memory.needed
        if needed is not None and all(needed / v > memory.has for v in values.values()):
            return (
                f"no smaller batch size will fit: one picture alone needs about "
                f"{size_text(needed // min(values.values()))}"
            )
    changes = [f"{v:,} → {smaller_value(kind, v, factor):,}" for v in values.values()]
    return ", ".join(dict.fromkeys(changes))


def memory_text(memory: MemoryTold) -> str:
    """What the failure told: "It asked for 4 TiB at once; the server has 24 GiB (this
    computer's memory)."; "" when it told nothing."""
    if memory.needed is None:
        return ""
    asked = f"It needed {size_text(memory.needed)}"
    if memory.has is None:
        return f"{asked}; the server did not say how much memory it has."
    where = " (this computer's memory)" if memory.has_local else ""
    return f"{asked}; the server has {size_text(memory.has)}{where}."


def proposed_percent(kind: str, memory: MemoryTold | None) -> float:
    """The scale proposed: 75 %, or less when the failure tells that 75 % would not fit (in
    whole percent, in hundredths below 1 %: 0.58 % of a batch of 4,096 is 23)."""
    factor = memory.fitting_factor(kind) if memory is not None else None
    if factor is None:
        return DEFAULT_PERCENT
    percent = factor * 100
    shown = math.floor(percent) if percent >= 1 else math.floor(percent * 100) / 100
    return max(MIN_PERCENT, min(DEFAULT_PERCENT, shown))


class RetrySmallerDialog(QDialog):
    """One check box per kind the job's workflow has (``choices``: see ``shrink_choices``),
    the likely cause checked (``default_shrink``); the scale in percent, proposed from what the
    failure told (``memory``: see ``core.batch.memory_told``) when it tells enough."""

    def __init__(
        self,
        job_id: str,
        choices: Mapping[str, Mapping[str, int]],
        parent: Any = None,
        memory: MemoryTold | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Retry smaller")
        self._choices = choices
        self._memory = memory
        told = memory_text(memory) if memory is not None else ""
        intro = QLabel(
            f"Job {job_id} ran out of memory. {told + ' ' if told else ''}"
            "Queue a copy with less to hold:",
            self,
        )
        intro.setWordWrap(True)
        intro.setAccessibleName("What ran out")
        self.intro = intro
        likely = default_shrink(choices)
        proposed = proposed_percent(likely, memory)
        self.percent = QDoubleSpinBox(self)
        self.percent.setDecimals(0 if proposed >= 1 else 2)  # hundredths for a huge excess
        self.percent.setRange(MIN_PERCENT, 95)
        self.percent.setSingleStep(5)
        self.percent.setSuffix(" %")
        self.percent.setValue(proposed)
        self.percent.setAccessibleName("Scale to")
        self.boxes: dict[str, QCheckBox] = {}
        self.changes: dict[str, QLabel] = {}
        form = QFormLayout()
        for kind in SHRINK_KINDS:
            box = QCheckBox(_LABELS[kind], self)
            box.setEnabled(bool(choices.get(kind)))
            box.setChecked(kind == likely and box.isEnabled())
            box.toggled.connect(self._update)
            self.boxes[kind] = box
            self.changes[kind] = QLabel(self)
            form.addRow(box, self.changes[kind])
        form.addRow("Scale &to", self.percent)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("&Queue smaller copy")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.percent.valueChanged.connect(self._update)
        self.percent.setToolTip("The size of the copy, in % of the failed job's")
        self._update()

    def factor(self) -> float:
        return self.percent.value() / 100

    def shrink(self) -> list[str]:
        return [kind for kind, box in self.boxes.items() if box.isChecked()]

    @Slot()
    def _update(self) -> None:
        for kind, label in self.changes.items():
            values = self._choices.get(kind, {})
            label.setText(change_text(kind, values, self.factor(), self._memory))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.shrink()))

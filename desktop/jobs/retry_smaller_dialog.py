"""Retry smaller: the artist chooses what to shrink (size, batch size) and by how much."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
)

from core.batch import SHRINK_BATCH, SHRINK_KINDS, SHRINK_SIZE, default_shrink, smaller_value

if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_PERCENT = 75
_LABELS = {SHRINK_SIZE: "&Size (width × height)", SHRINK_BATCH: "&Batch size"}


def change_text(kind: str, values: Mapping[str, int], factor: float) -> str:
    """``1024 → 768, 768 → 576`` (each input once), or why there is nothing to shrink."""
    if not values:
        return "nothing to shrink in this workflow"
    changes = [f"{v:,} → {smaller_value(kind, v, factor):,}" for v in values.values()]
    return ", ".join(dict.fromkeys(changes))


class RetrySmallerDialog(QDialog):
    """One check box per kind the job's workflow has (``choices``: see ``shrink_choices``),
    the likely cause checked (``default_shrink``); the scale in percent."""

    def __init__(
        self, job_id: str, choices: Mapping[str, Mapping[str, int]], parent: Any = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Retry smaller")
        self._choices = choices
        intro = QLabel(f"Job {job_id} ran out of memory. Queue a copy with less to hold:", self)
        intro.setWordWrap(True)
        self.percent = QSpinBox(self)
        self.percent.setRange(10, 95)
        self.percent.setSingleStep(5)
        self.percent.setSuffix(" %")
        self.percent.setValue(DEFAULT_PERCENT)
        self.percent.setAccessibleName("Scale to")
        self.boxes: dict[str, QCheckBox] = {}
        self.changes: dict[str, QLabel] = {}
        form = QFormLayout()
        likely = default_shrink(choices)
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
        self._update()

    def factor(self) -> float:
        return self.percent.value() / 100

    def shrink(self) -> list[str]:
        return [kind for kind, box in self.boxes.items() if box.isChecked()]

    @Slot()
    def _update(self) -> None:
        for kind, label in self.changes.items():
            label.setText(change_text(kind, self._choices.get(kind, {}), self.factor()))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.shrink()))

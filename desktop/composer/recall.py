"""Recall in the window: a job's or a dropped picture's values put into the composer."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QMessageBox, QWidget

if TYPE_CHECKING:
    from core.batch.recall import Recall
    from desktop.composer.batch_composer import BatchComposerWidget


# The seed choices of one job that keeps the workflow's values (nothing varied, count 1).
ONE_JOB: dict[str, Any] = {"count": 1, "varied": []}


class RecallChoice(Enum):
    """What the artist chose for a picture whose workflow is a stored preset's."""

    apply = "apply"  # its values become the preset's composer values
    add = "add"  # it becomes a preset of its own


def ask_recall_choice(parent: QWidget, recall: Recall, file_name: str) -> RecallChoice | None:
    """Ask whether the picture's values go to the matching preset or make a new one."""
    box = QMessageBox(parent)
    box.setWindowTitle("Picture dropped")
    box.setIcon(QMessageBox.Icon.Question)
    box.setText(f"“{file_name}” was made with the workflow of preset “{recall.preset}”.")
    box.setInformativeText("Use its values (seed included) in the composer, or add it as a preset?")
    apply = box.addButton(f"Use as “{recall.preset}” values", QMessageBox.ButtonRole.AcceptRole)
    add = box.addButton(f"Add as preset “{recall.name}”", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(apply)
    box.exec()
    clicked = box.clickedButton()
    if clicked is apply:
        return RecallChoice.apply
    return RecallChoice.add if clicked is add else None


def apply_recalled(composer: BatchComposerWidget, name: str, state: dict[str, Any]) -> None:
    """Compose for preset `name` with a recalled state (`Recall.composer_state`, or seeds only).

    A whole recall without seeds (a workflow without seed inputs) is one job: no input is
    varied, so the count kept from before ("Count 40") cannot make 40 copies of one picture;
    its seed alone without seeds leaves the seed choices as they are. What is applied is kept
    as the preset's composer state at once.
    """
    if composer.preset_name != name:
        composer.set_preset(name)
    if composer.preset_name != name:
        return  # the preset could not be loaded: the composer says why
    seeds = state.get("seeds")
    if "values" in state:
        composer.restore({**state, "seeds": seeds or ONE_JOB})
    elif seeds:
        composer.seeds.restore(seeds)
    composer.update_count()
    composer.memory.edited()  # kept as the preset's composer state

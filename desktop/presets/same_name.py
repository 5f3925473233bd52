"""The question for a dropped workflow whose name is a preset's with other content: update
that preset (a new version, the old one kept) or keep both (a new preset under a free name)."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from desktop.presets.preset_files import SameName


def same_name_box(parent: QWidget | None, name: str) -> QMessageBox:
    """The question, its buttons named by what they do; Update is the default."""
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Same name, other workflow",
        f"A preset named '{name}' already exists with another workflow.\n\n"
        f"Update it (its old workflow is kept as a version), or keep both?",
        QMessageBox.StandardButton.Cancel,
        parent,
    )
    box.setObjectName("same_name_box")
    update = box.addButton(f"Update '{name}'", QMessageBox.ButtonRole.AcceptRole)
    update.setObjectName("update")
    update.setAccessibleName(f"Update the preset {name}")
    update.setToolTip("Store this workflow as a new version of the preset")
    keep = box.addButton("Keep both", QMessageBox.ButtonRole.ActionRole)
    keep.setObjectName("keep_both")
    keep.setAccessibleName("Keep both presets")
    keep.setToolTip(f"Add this workflow as a new preset, '{name} (2)' or the next free name")
    box.setDefaultButton(update)
    return box


def ask_same_name(parent: QWidget | None, name: str) -> SameName | None:
    """Ask; None when cancelled (the file is not added)."""
    box = same_name_box(parent, name)
    box.exec()
    clicked = box.clickedButton()
    if clicked is None:
        return None
    return {"update": SameName.update, "keep_both": SameName.keep_both}.get(clicked.objectName())

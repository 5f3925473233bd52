"""The window's one yes-or-cancel question, so every confirmation looks and defaults alike."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


def confirm(
    parent: QWidget | None,
    title: str,
    text: str,
    *,
    warning: bool = False,
    yes_text: str | None = None,
) -> bool:
    """Ask `text`; True only for Yes (Cancel is the default, so Enter never says yes by chance).
    ``yes_text`` names the Yes button by what it does ("Queue anyway")."""
    icon = QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Question
    buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    if yes_text:
        box.button(QMessageBox.StandardButton.Yes).setText(yes_text)
    return box.exec() == QMessageBox.StandardButton.Yes

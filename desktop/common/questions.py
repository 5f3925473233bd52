"""The window's one yes-or-cancel question, so every confirmation looks and defaults alike."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


def confirm(parent: QWidget | None, title: str, text: str, *, warning: bool = False) -> bool:
    """Ask `text`; True only for Yes (Cancel is the default, so Enter never says yes by chance)."""
    ask = QMessageBox.warning if warning else QMessageBox.question
    buttons = QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel
    answer = ask(parent, title, text, buttons, QMessageBox.StandardButton.Cancel)
    return answer == QMessageBox.StandardButton.Yes

"""Leaving the demo: the presets made there, offered to the real ledger (all checked)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from desktop.app.demo import copy_presets, made_in_demo

if TYPE_CHECKING:
    from core.ledger import Ledger


class DemoPresetsDialog(QDialog):
    """One check box per preset made in the demo; Keep copies the checked ones."""

    def __init__(self, names: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keep the demo's presets")
        layout = QVBoxLayout(self)
        intro = QLabel("These presets were made in the demo. Keep them for your ComfyUI?", self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.checks: list[tuple[str, QCheckBox]] = []
        for name in names:
            check = QCheckBox(name.replace("&", "&&"), self)
            check.setChecked(True)
            check.setAccessibleName(f"Keep preset {name}")
            layout.addWidget(check)
            self.checks.append((name, check))
        buttons = QDialogButtonBox(self)
        buttons.addButton("Keep checked", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton("Keep none", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def chosen(self) -> list[str]:
        return [name for name, check in self.checks if check.isChecked()]

    @classmethod
    def ask(cls, names: list[str], parent: QWidget | None = None) -> list[str]:
        """The names the artist keeps (none when the dialog is dismissed; tests patch this)."""
        dialog = cls(names, parent)
        return dialog.chosen() if dialog.exec() == QDialog.DialogCode.Accepted else []


def offer_demo_presets(demo: Ledger, real: Ledger, parent: QWidget | None = None) -> list[str]:
    """Ask which presets made in the demo the real ledger keeps, and copy those; returns the
    names they are stored under there (nothing is asked when there are none)."""
    names = made_in_demo(demo, real)
    if not names:
        return []
    return copy_presets(demo, real, DemoPresetsDialog.ask(names, parent))

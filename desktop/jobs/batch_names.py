"""Naming a batch from the window: the batch of the selected job, or the one filtered on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog, QLineEdit

from core.errors import BatchlineError

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from core.ledger import Ledger
    from desktop.common.controller_port import ControllerPort


def batch_label(batch_id: str, name: str | None) -> str:
    """What the window shows for a batch: its name with its id, or the id alone."""
    return f"{name} ({batch_id})" if name else batch_id


def ask_and_name(
    parent: QWidget, ledger: Ledger, controller: ControllerPort, batch_id: str
) -> str | None:
    """Ask for the batch's name (its current one filled in) and store it; the error to show,
    or None (named, or the artist cancelled)."""
    current = ledger.batch(batch_id).name or ""
    dialog = QInputDialog(parent)
    dialog.setWindowTitle("Name batch")
    dialog.setLabelText(f"Name of {batch_id} (empty: no name):")
    dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
    dialog.setTextValue(current)
    accepted = dialog.exec()
    text = dialog.textValue()
    dialog.deleteLater()
    if not accepted:
        return None
    try:
        controller.name_batch(batch_id, text)
    except BatchlineError as exc:
        return str(exc)
    return None

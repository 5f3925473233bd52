"""Naming a batch from the window: the batch of the selected job, or the one filtered on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog, QLineEdit

from core.batch.batch_title import stored_title
from core.errors import BatchlineError

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from core.ledger import Ledger
    from desktop.common.controller_port import ControllerPort


def batch_label(batch_id: str, name: str | None) -> str:
    """What the window shows for a batch in full: its title with its id, or the id alone."""
    return f"{name} ({batch_id})" if name else batch_id


def ask_and_name(
    parent: QWidget, ledger: Ledger, controller: ControllerPort, batch_id: str
) -> str | None:
    """Ask for the batch's name (its current one filled in) and store it; the error to show,
    or None (named, or the artist cancelled)."""
    batch = ledger.batch(batch_id)
    dialog = QInputDialog(parent)
    dialog.setWindowTitle("Name batch")
    dialog.setLabelText(f"Name of {batch_id} (empty: “{stored_title(ledger, batch)}”):")
    dialog.setTextEchoMode(QLineEdit.EchoMode.Normal)
    dialog.setTextValue(batch.name or "")
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

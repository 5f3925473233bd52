"""What closing the window does while jobs are left: keep working in the background, or stop."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget


class CloseChoice(StrEnum):
    background = "background"  # the background controller goes on, and stops once done
    stop = "stop"  # it stops now: what ComfyUI holds finishes there, the rest waits


KEEP_TEXT = "Keep running in the background"
STOP_TEXT = "Stop sending jobs"


def ask_on_close(parent: QWidget, left: int) -> CloseChoice | None:
    """Ask what to do with the ``left`` unfinished jobs; None: the window stays open."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Batchline is still working")
    jobs = "1 job is" if left == 1 else f"{left} jobs are"
    box.setText(f"{jobs} not finished yet.")
    box.setInformativeText(
        "Keep running in the background: Batchline goes on sending them to ComfyUI with no "
        "window open, and stops by itself once they are done. Open Batchline again to watch "
        "them.\n\n"
        "Stop sending jobs: what ComfyUI already holds finishes there; the other jobs wait "
        "until you open Batchline again."
    )
    keep = box.addButton(KEEP_TEXT, QMessageBox.ButtonRole.AcceptRole)
    stop = box.addButton(STOP_TEXT, QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(keep)
    box.setEscapeButton(cancel)
    box.exec()
    clicked = box.clickedButton()
    box.deleteLater()
    if clicked is keep:
        return CloseChoice.background
    if clicked is stop:
        return CloseChoice.stop
    return None

"""Settings' "Install in ComfyUI…": puts the "Send to Batchline" extension into a local ComfyUI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from core.comfyui_extension import install
from core.errors import BatchlineError


class ExtensionInstaller(QWidget):
    """A button that asks for the ComfyUI folder and installs the extension there; the note
    beside it says what happened in one sentence."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.button = QPushButton("Install in ComfyUI…", self)
        self.button.setAccessibleName("Install the Send to Batchline extension in ComfyUI")
        self.button.setToolTip(
            "Copy Batchline's ComfyUI extension into a ComfyUI folder on this computer: it adds "
            "'Send to Batchline' to ComfyUI's editor. Restart ComfyUI afterwards."
        )
        self.button.clicked.connect(self.choose)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setAccessibleName("What the extension install did")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.button)
        row.addWidget(self.note, 1)

    @Slot()
    def choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "ComfyUI's folder", str(Path.home()))
        if folder:
            self.install_into(Path(folder))

    def install_into(self, comfyui_dir: Path) -> bool:
        """Install into ``comfyui_dir``; the note says what happened. True when it worked."""
        try:
            sentence = install(comfyui_dir).sentence()
        except (BatchlineError, OSError) as exc:
            text = str(exc) if isinstance(exc, BatchlineError) else f"Could not copy: {exc}"
            self.note.setText(f"Not installed: {text[:1].lower()}{text[1:]}")
            self.note.setStyleSheet("color: #a4262c;")
            return False
        self.note.setText(sentence)
        self.note.setStyleSheet("color: #1e7b34;")
        return True

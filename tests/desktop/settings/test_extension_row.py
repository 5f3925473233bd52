"""Settings' "Install in ComfyUI…": the folder picked, then one sentence of what happened."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from core.comfyui_extension import FOLDER_NAME
from desktop.settings.extension_row import ExtensionInstaller
from desktop.settings.settings_dialog import SettingsDialog


def _comfyui(tmp_path: Path) -> Path:
    (tmp_path / "custom_nodes").mkdir()
    (tmp_path / "main.py").write_text("")
    return tmp_path


def test_the_button_installs_into_the_folder_picked(qtbot, tmp_path, monkeypatch) -> None:
    root = _comfyui(tmp_path)
    row = ExtensionInstaller()
    qtbot.addWidget(row)
    asked: list[str] = []

    def pick(parent, title, start):  # the artist picks ComfyUI's folder
        asked.append(title)
        return str(root)

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", pick)
    qtbot.mouseClick(row.button, Qt.MouseButton.LeftButton)
    assert asked == ["ComfyUI's folder"]
    target = root / "custom_nodes" / FOLDER_NAME
    assert (target / "js" / "batchline.js").is_file()
    assert row.note.text() == (
        f"Installed the Batchline extension in {target}. Restart ComfyUI to load it."
    )
    (target / "js" / "batchline.js").write_text("// changed by hand")
    qtbot.mouseClick(row.button, Qt.MouseButton.LeftButton)
    assert row.note.text().startswith(f"Not installed: {target} was changed since Batchline")
    assert (target / "js" / "batchline.js").read_text() == "// changed by hand"


def test_a_wrong_folder_and_a_cancel(qtbot, tmp_path, monkeypatch) -> None:
    row = ExtensionInstaller()
    qtbot.addWidget(row)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a: str(tmp_path))
    row.button.click()
    assert row.note.text() == (
        f"Not installed: {tmp_path} does not look like ComfyUI (no main.py and custom_nodes "
        "folder in it)"
    )
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a: "")
    row.note.clear()
    row.button.click()
    assert row.note.text() == ""


def test_the_settings_dialog_has_the_button(qtbot, ledger) -> None:
    dialog = SettingsDialog(ledger)
    qtbot.addWidget(dialog)
    assert dialog.extension.button.text() == "Install in ComfyUI…"
    assert dialog.extension.button.accessibleName()
    assert dialog.extension.button.toolTip()

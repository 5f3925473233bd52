"""Run by test_screen_fit in a process of its own (the screen is chosen at Qt's start): opens
the main window as the app does on the offscreen platform's screen and prints, as JSON, the
screen's room and where the window, the Queue button and the status bar landed."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QWidget

from core.ledger import Ledger
from desktop.presets.preset_files import add_preset_file
from desktop.window.main_window import MainWindow
from tests.desktop.conftest import TXT2IMG
from tests.desktop.fakes import FakeController


def _on_screen(widget: QWidget) -> list[int]:
    """The part of the widget not hidden by a scroll area, in screen coordinates."""
    seen = widget.visibleRegion().boundingRect()
    if seen.size() != widget.size():
        return []
    top_left = widget.mapToGlobal(seen.topLeft())
    return _box(QRect(top_left, seen.size()))


def _box(rect: QRect) -> list[int]:
    return [rect.left(), rect.top(), rect.right(), rect.bottom()]


def main() -> None:
    app = QApplication(sys.argv)
    with tempfile.TemporaryDirectory() as folder, Ledger(Path(folder) / "ledger") as ledger:
        add_preset_file(ledger, TXT2IMG)
        window = MainWindow(ledger, FakeController(ledger), thumbnail_dir=Path(folder) / "t")
        window.start()
        window.fit_to_screen()
        window.show()
        app.processEvents()
        room = window.screen().availableGeometry()
        folded = window.tabs.width() if window.tabs.isVisible() else 0
        middle = window.middle.width()
        window.show_tab(0)  # View > Details
        app.processEvents()
        opened = window.tabs.width() if window.tabs.isVisible() else 0
        print(
            json.dumps(
                {
                    "room": _box(room),
                    "window": _box(window.frameGeometry()),
                    "queue": _on_screen(window.composer.queue_button),
                    "status": _on_screen(window.statusBar()),
                    "form_height": window.composer.form_scroll.viewport().height(),
                    "details_width": folded,
                    "middle_width": middle,
                    "details_opened_width": opened,
                }
            )
        )
        window.close()
        window.deleteLater()
        app.processEvents()


if __name__ == "__main__":
    main()

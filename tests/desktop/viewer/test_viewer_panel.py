"""Tests for desktop.viewer.viewer_panel: the side panel's values and buttons (copy the seed)."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from tests.desktop.viewer.viewer_batch import SEEDS


def test_copy_seed_puts_it_in_the_clipboard(viewer) -> None:
    viewer.actions_by_name["next"].trigger()
    assert viewer.actions_by_name["again"].text() == "&Queue again with this seed"
    viewer.panel.buttons["copy_seed"].click()
    assert QGuiApplication.clipboard().text() == str(SEEDS[1])

"""Tests for desktop.window.side_panes: the presets-and-composer pane and the details pane fold
away and open again by their button, their key and by dragging the splitter, and stay as the
artist left them at the next start."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton

from desktop.window.main_window import MainWindow
from desktop.window.side_panes import Side


def _button(window: MainWindow, side: Side) -> QToolButton:
    left = side is Side.composer
    corner = window.middle.cornerWidget(
        Qt.Corner.TopLeftCorner if left else Qt.Corner.TopRightCorner
    )
    assert isinstance(corner, QToolButton)
    return corner


def _shown(qtbot, window: MainWindow) -> None:
    """Shown as the app opens it (the offscreen screen: 800x800, narrow: the details folded)."""
    window.fit_to_screen()
    window.show()
    qtbot.waitExposed(window)


def test_a_pane_folds_to_its_button_and_opens_again_as_wide(qtbot, window) -> None:
    _shown(qtbot, window)
    window.show_tab(0)  # View > Details opens it
    left, middle, right = window._split.sizes()
    assert left > 0
    assert right > 0
    button = _button(window, Side.composer)
    assert button.isChecked()
    assert button.accessibleName()
    button.click()
    assert window._split.sizes()[0] == 0
    assert window._split.sizes()[1] == left + middle, "the pictures get its room"
    assert not window.panes.actions[Side.composer].isChecked()
    button.click()
    assert window._split.sizes()[0] == left
    window.panes.actions[Side.details].trigger()  # its key, its View menu entry
    assert window._split.sizes()[2] == 0
    assert not _button(window, Side.details).isChecked()


def test_dragging_a_pane_to_its_edge_folds_it(qtbot, window) -> None:
    _shown(qtbot, window)
    window._split.moveSplitter(0, 1)  # as the artist drags the handle to the left edge
    assert window._split.sizes()[0] == 0
    assert not _button(window, Side.composer).isChecked()
    _button(window, Side.composer).click()
    assert window._split.sizes()[0] > 0


def test_the_panes_are_as_the_artist_left_them_at_the_next_start(
    qtbot, ledger, controller, preset_name, tmp_path
) -> None:
    first = MainWindow(ledger, controller, thumbnail_dir=tmp_path / "t1")
    qtbot.addWidget(first)
    first.start()
    _shown(qtbot, first)
    assert first._split.sizes()[2] == 0, "narrow: the details start folded"
    first.panes.actions[Side.details].trigger()  # opened by the artist
    sizes = first._split.sizes()
    first._split.moveSplitter(sizes[0] + sizes[1] - 60, 2)  # and made wider
    wide = first._split.sizes()[2]
    first.panes.actions[Side.composer].trigger()  # the composer folded away
    first.close()
    middle = MainWindow(ledger, controller, thumbnail_dir=tmp_path / "t3")
    qtbot.addWidget(middle)
    middle.start()
    _shown(qtbot, middle)
    middle.panes.actions[Side.composer].trigger()  # opened again, and made narrower
    composer = middle._split.sizes()[0] - 40
    middle._split.moveSplitter(composer, 1)
    composer = middle._split.sizes()[0]
    middle.panes.actions[Side.composer].trigger()  # folded again
    middle.panes.actions[Side.composer].trigger()  # and opened: as narrow as it was
    assert middle._split.sizes()[0] == composer
    middle.panes.actions[Side.composer].trigger()  # left folded
    middle.close()
    again = MainWindow(ledger, controller, thumbnail_dir=tmp_path / "t2")
    qtbot.addWidget(again)
    again.start()
    _shown(qtbot, again)
    assert again._split.sizes()[0] == 0, "the composer stays folded"
    assert not again.panes.actions[Side.composer].isChecked()
    assert again._split.sizes()[2] == wide, "the details open, as wide as left"
    assert again.panes.actions[Side.details].isChecked()
    again.panes.actions[Side.composer].trigger()
    assert again._split.sizes()[0] == composer, "as wide as the artist left it"
    again.close()


def test_a_narrow_window_starts_with_the_details_folded_to_its_button(qtbot, window) -> None:
    window.fit_to_screen(800, 500)
    window.show()
    qtbot.waitExposed(window)
    assert window._split.sizes()[2] == 0
    button = _button(window, Side.details)
    assert button.isVisible()
    assert not button.isChecked()
    button.click()
    assert window._split.sizes()[2] >= 100
    assert window._split.sizes()[1] >= 200, "the pictures keep room"

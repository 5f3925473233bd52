"""The menu bar carries every action with its shortcut; Tab walks the window top to bottom."""

from __future__ import annotations

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import QScrollBar

from desktop.window.main_window import MainWindow, tab_stops
from desktop.window.window_menus import shortcuts_text


@pytest.fixture
def window(qtbot, ledger, controller, preset_name, tmp_path):
    window = MainWindow(ledger, controller, thumbnail_dir=tmp_path / "thumbs")
    qtbot.addWidget(window)
    window.start()
    window.show()
    qtbot.waitExposed(window)
    yield window
    window.close()


def test_the_menus_hold_every_action_with_a_shortcut(window) -> None:
    titles = [menu.title() for menu in window.menus]
    assert titles == ["&File", "&Edit", "&Jobs", "&View", "&Help"]
    in_menus = {action for menu in window.menus for action in menu.actions()}
    toolbar = [a for a in window.toolbar.actions() if a.text() and not a.isSeparator()]
    jobs = window.job_actions.all()
    for action in [*toolbar, *jobs, window.quit_action, window.quit_all_action]:
        assert action in in_menus, action.text()
    files = [a.text() for a in window.menus[0].actions()]
    for kept in ("Se&ttings…", "&Close window", "&Quit Batchline completely"):
        assert kept in files
    without = [
        a.text()
        for a in in_menus
        if a.text() and not a.isSeparator() and a.shortcut().isEmpty() and "About" not in a.text()
    ]
    assert without == []
    listed = shortcuts_text(window.menuBar())
    assert "Jobs › Cancel: Del" in listed
    assert "Edit › Queue batch: Ctrl+Return" in listed


def test_the_shortcuts_are_those_of_the_menus_qt_has_now(window) -> None:
    """Found by the monkey: F1 read menus kept in a Python list; one Qt had deleted since
    raised "Internal C++ object (QMenu) already deleted"."""
    help_menu = window.menus[-1]
    # The Edit menu, deleted by Qt under the list. Not shiboken6.delete(): that left its
    # actions' wrappers half released, and the window's own deletion in a later test crashed.
    window.menus[1].deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert not shiboken6.isValid(window.menus[1])
    listed = shortcuts_text(window.menuBar())
    assert "Jobs › Cancel: Del" in listed
    assert "Edit ›" not in listed
    assert help_menu.actions(), "the others are still there"


def test_tab_goes_top_to_bottom_and_the_table_is_one_stop(window, qtbot) -> None:
    assert not window.table.tabKeyNavigation()
    assert not window.sheet.list_view.tabKeyNavigation()

    def stops() -> list:
        return [w for w in tab_stops(window) if not isinstance(w, QScrollBar)]

    def first(widget) -> int:
        return next(i for i, w in enumerate(stops()) if w is widget or widget.isAncestorOf(w))

    order = [first(window.presets), first(window.composer), first(window.sheet), first(window.tabs)]
    assert order == sorted(order), order
    assert sum(w is window.sheet.list_view for w in stops()) == 1
    window.show_table()
    order = [
        first(window.composer),
        first(window.filter_bar),
        first(window.table),
        first(window.tabs),
    ]
    assert order == sorted(order), order
    assert sum(w is window.table for w in stops()) == 1
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_Tab)
    assert window.focusWidget() is not window.table


def test_view_menu_moves_the_focus(window) -> None:
    view = {a.text(): a for a in window.menus[3].actions()}
    view["&Jobs table"].trigger()
    assert window.focusWidget() is window.table
    view["&Pictures"].trigger()
    assert window.middle.currentWidget().isAncestorOf(window.sheet)
    assert window.focusWidget() is window.sheet.list_view
    view["&Details"].trigger()
    assert window.tabs.currentIndex() == 0
    assert window.focusWidget() is window.tabs.currentWidget()
    view["&Composer"].trigger()
    assert window.composer.isAncestorOf(window.focusWidget())


def test_f1_lists_every_key_the_sheet_and_the_viewer_bind(window, ledger, controller, qtbot):
    """Seen: F1 listed the menus' keys only, not the sheet's (1, 0, +/-, [ ]) nor the
    viewer's (arrows, F, A, Delete ...). They are listed from the tables they are bound from;
    this reads what is bound on the widgets themselves."""
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QApplication, QPlainTextEdit

    from desktop.jobs.job_action_scope import plain_text
    from desktop.viewer.viewer import PictureViewer

    viewer = PictureViewer(ledger, controller)
    qtbot.addWidget(viewer)
    listed = shortcuts_text(window.menuBar()).splitlines()
    sheet = window.sheet
    bound = [
        ("Pictures", action)
        for widget in (sheet, sheet.list_view, sheet.grid_view)
        for action in widget.actions()
    ] + [("Viewer", action) for action in viewer.actions()]
    told = 0
    for place, action in bound:
        for keys in action.shortcuts():
            key = keys.toString(QKeySequence.SequenceFormat.NativeText)
            name = plain_text(action.text()).strip(" ◀▶★✕")
            lines = [line for line in listed if line.startswith(f"{place} › {name}: ")]
            in_menus = any(
                line.endswith(f"› {plain_text(action.text())}: {key}") for line in listed
            )
            assert in_menus or any(key in line.split(": ", 1)[1].split(", ") for line in lines), (
                place,
                action.text(),
                key,
            )
            told += 1
    assert told >= 20
    for keys in ("Enter", "Arrows, Home, End", "Wheel"):
        assert any(line.endswith(f": {keys}") for line in listed), keys
    help_menu = window.menus[-1]
    f1 = next(a for a in help_menu.actions() if a.shortcut().toString() == "F1")
    f1.trigger()
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is not None)
    dialog = QApplication.activeModalWidget()
    shown = dialog.findChild(QPlainTextEdit)
    assert "Viewer › Fit: F" in shown.toPlainText()
    assert "Pictures › Star: 1" in shown.toPlainText()
    dialog.reject()

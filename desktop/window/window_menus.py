"""The main window's menu bar (File, Edit, Jobs, View, Help): every action with its shortcut,
and a Help page listing those shortcuts and the picture sheet's and the viewer's keys, read
from the tables they are bound from (`contact_sheet.SHEET_KEYS`, `viewer.VIEWER_KEYS`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
)

from core import __version__
from desktop.jobs.job_action_scope import plain_text
from desktop.sheet.contact_sheet import SHEET_KEYS, SHEET_VIEW_KEYS
from desktop.viewer.viewer import VIEWER_KEYS, VIEWER_MOUSE

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtWidgets import QMenuBar, QToolBar, QWidget

    from desktop.composer.batch_composer import BatchComposerWidget
    from desktop.jobs.job_actions import JobActions
    from desktop.presets.presets_panel import PresetsPanel
    from desktop.sheet.contact_sheet import ContactSheetWidget
    from desktop.window.side_panes import SidePanes


class MenuWindow(Protocol):
    """What the menus reach of the main window: its panes, its actions and its slots."""

    @property
    def presets(self) -> PresetsPanel: ...

    @property
    def composer(self) -> BatchComposerWidget: ...

    @property
    def job_actions(self) -> JobActions: ...

    @property
    def sheet(self) -> ContactSheetWidget: ...

    @property
    def toolbar(self) -> QToolBar: ...

    @property
    def panes(self) -> SidePanes: ...

    @property
    def connect_action(self) -> QAction: ...

    @property
    def settings_action(self) -> QAction: ...

    @property
    def quit_action(self) -> QAction: ...

    @property
    def quit_all_action(self) -> QAction: ...

    def window(self) -> QWidget: ...

    def menuBar(self) -> QMenuBar: ...

    def select_all_jobs(self) -> None: ...

    def focus_filter(self) -> None: ...

    def name_batch(self) -> None: ...

    def focus_composer(self) -> None: ...

    def show_table(self) -> None: ...

    def show_pictures(self) -> None: ...

    def show_tab(self, index: int) -> None: ...


def build_menus(window: MenuWindow) -> list[QMenu]:
    """Fill the window's menu bar; the File menu keeps Settings, Close window and Quit."""
    bar = window.menuBar()
    owner = window.window()  # the main window itself (a top-level widget), as a QWidget
    file_menu = bar.addMenu("&File")
    file_menu.addAction(
        _action(owner, "&Open preset…", "Ctrl+O", window.presets.open_files, "Open a workflow")
    )
    file_menu.addAction(window.connect_action)
    file_menu.addSeparator()
    file_menu.addAction(window.settings_action)
    file_menu.addSeparator()
    file_menu.addAction(window.quit_action)
    file_menu.addAction(window.quit_all_action)

    edit_menu = bar.addMenu("&Edit")
    composer = window.composer
    edit_menu.addAction(composer.queue_action)
    edit_menu.addAction(
        _action(owner, "&Reset to preset", "Ctrl+Shift+Backspace", composer.reset_button.click)
    )
    edit_menu.addAction(
        _action(owner, "&Save as preset…", "Ctrl+Shift+S", composer.save_button.click)
    )
    edit_menu.addSeparator()
    edit_menu.addAction(_action(owner, "Select &all jobs", "Ctrl+A", window.select_all_jobs))
    edit_menu.addAction(_action(owner, "&Filter jobs", "Ctrl+F", window.focus_filter))

    jobs_menu = bar.addMenu("&Jobs")
    for action in window.job_actions.all():
        jobs_menu.addAction(action)
    jobs_menu.addSeparator()
    for action in window.job_actions.recall_actions():
        jobs_menu.addAction(action)
    jobs_menu.addSeparator()
    jobs_menu.addAction(_action(owner, "&Name batch…", "F2", window.name_batch))
    jobs_menu.addSeparator()
    for action in window.sheet.picture_actions:  # the shown batch's pictures
        jobs_menu.addAction(action)

    view_menu = bar.addMenu("&View")
    toolbar = window.toolbar.toggleViewAction()
    toolbar.setText("&Toolbar")
    toolbar.setShortcut(QKeySequence("Ctrl+Shift+T"))
    view_menu.addAction(toolbar)
    view_menu.addSeparator()
    view_menu.addAction(_action(owner, "&Composer", "Ctrl+1", window.focus_composer))
    view_menu.addAction(_action(owner, "&Jobs table", "Ctrl+2", window.show_table))
    view_menu.addAction(_action(owner, "&Details", "Ctrl+3", lambda: window.show_tab(0)))
    view_menu.addAction(_action(owner, "&Pictures", "Ctrl+4", window.show_pictures))
    view_menu.addSeparator()
    for action in window.panes.actions.values():  # fold a side pane away, open it again
        view_menu.addAction(action)

    help_menu = bar.addMenu("&Help")
    menus = [file_menu, edit_menu, jobs_menu, view_menu, help_menu]
    help_menu.addAction(
        _action(
            owner,
            "&Keyboard shortcuts",
            "F1",
            lambda: show_shortcuts(owner, shortcuts_text(window.menuBar())),
        )
    )
    help_menu.addAction(
        _action(
            owner,
            "&About Batchline",
            "",
            lambda: QMessageBox.about(
                owner,
                "About Batchline",
                f"Batchline {__version__}: batches of jobs for ComfyUI servers.",
            ),
        )
    )
    return menus


def shortcuts_text(bar: QMenuBar) -> str:
    """Each menu's actions that have a shortcut, one a line: "Jobs › Cancel: Del"; then the
    picture sheet's keys ("Pictures › Star: 1") and the viewer's ("Viewer › Fit: F"), from the
    tables that bind them. The menus are asked of Qt now, not kept from when they were built
    (a menu Qt had deleted since raised "Internal C++ object (QMenu) already deleted" at F1,
    found by the monkey)."""
    lines = []
    menus = [menu for action in bar.actions() if isinstance(menu := action.menu(), QMenu)]
    for menu in menus:
        for action in menu.actions():
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            if keys:
                lines.append(f"{plain_text(menu.title())} › {plain_text(action.text())}: {keys}")
    lines += ["", "In the picture sheet:"]
    lines += [f"Pictures › {plain_text(text)}: {_keys(keys)}" for text, keys in SHEET_KEYS.values()]
    lines += [f"Pictures › {what}: {keys}" for keys, what in SHEET_VIEW_KEYS]
    lines += ["", "In the picture viewer:"]
    lines += [f"Viewer › {_named(key.text)}: {_keys(key.keys)}" for key in VIEWER_KEYS if key.keys]
    lines += [f"Viewer › {what}: {keys}" for keys, what in VIEWER_MOUSE]
    return "\n".join(lines)


def _keys(keys: tuple[str, ...]) -> str:
    """ "+, =" as the menus write keys (the system's names: "Del", "Ctrl+Return")."""
    native = QKeySequence.SequenceFormat.NativeText
    return ", ".join(QKeySequence(key).toString(native) for key in keys)


def _named(text: str) -> str:
    """An action's text as a list says it: "Next", not "Next ▶"."""
    return plain_text(text).strip(" ◀▶★✕")


def show_shortcuts(owner: QWidget, text: str) -> QDialog:
    """The keys in a dialog of their own that scrolls (they are more than a short screen
    holds); Escape or Close shuts it."""
    dialog = QDialog(owner)
    dialog.setWindowTitle("Keyboard shortcuts")
    view = QPlainTextEdit(text, dialog)
    view.setReadOnly(True)
    view.setAccessibleName("Keyboard shortcuts")
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(view)
    layout.addWidget(buttons)
    metrics = view.fontMetrics()
    widest = max(metrics.horizontalAdvance(line) for line in text.splitlines())
    screen = owner.screen().availableGeometry()
    dialog.resize(
        min(widest + 80, screen.width() - 48), min(metrics.lineSpacing() * 40, screen.height() - 96)
    )
    dialog.open()
    return dialog


def _action(
    window: QWidget, text: str, keys: str, slot: Callable[[], object], tip: str = ""
) -> QAction:
    action = QAction(text, window)
    if keys:
        action.setShortcut(QKeySequence(keys))
    if tip:
        action.setStatusTip(tip)
    action.triggered.connect(lambda _checked=False: slot())
    window.addAction(action)
    return action

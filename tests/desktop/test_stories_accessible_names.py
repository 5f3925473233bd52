"""A story across the window's parts: the window as the app builds it (a demo session, a batch
run so the sheet has cells), every control in it walked, each must have a name assistive
technology reads: its accessible name, or the text Qt exposes as one (a button's text, a
check box's, a label's that is its buddy). The sheet's cells' own names (with their state)
are the sheet's tests'; here the sheet's views must be named."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenuBar,
    QPlainTextEdit,
    QScrollBar,
    QSplitterHandle,
    QTabBar,
    QTextEdit,
    QToolBar,
    QWidget,
)

from desktop.app.session import Session, SessionOptions
from desktop.jobs.job_action_scope import plain_text
from tests.desktop.background_helpers import background_controller, until

# What an artist operates, reads as a control, or moves through.
CONTROLS = (
    QAbstractButton,
    QComboBox,
    QLineEdit,
    QAbstractSpinBox,
    QAbstractSlider,
    QTabBar,
    QAbstractItemView,
    QTextEdit,
    QPlainTextEdit,
    QAbstractScrollArea,
    QToolBar,
    QMenuBar,
)


def _buddy_names(root: QWidget) -> dict[int, str]:
    """The text of each label that is a widget's buddy, by the widget (Qt names it so)."""
    named = {}
    for label in root.findChildren(QLabel):
        buddy = label.buddy()
        if buddy is not None and plain_text(label.text()):
            named[id(buddy)] = plain_text(label.text())
    return named


def _name(widget: QWidget, buddies: dict[int, str]) -> str:
    if widget.accessibleName():
        return widget.accessibleName()
    if isinstance(widget, QAbstractButton) and plain_text(widget.text()):
        return plain_text(widget.text())
    return buddies.get(id(widget), "")


def _walked(root: QWidget) -> list[QWidget]:
    """The controls under ``root`` an artist can reach: shown (or in a page of a tab, a pane
    folded away), not the parts Qt names itself within a control (scroll bars, a table's
    headers and corner, a spin box's text field) nor a splitter's handle."""
    return [
        w
        for w in root.findChildren(QWidget)
        if isinstance(w, CONTROLS)
        and not isinstance(w, QScrollBar | QSplitterHandle | QHeaderView)
        and not isinstance(w.parentWidget(), QAbstractSpinBox)
        and w.objectName() != "qt_tableview_cornerbutton"
        and w.window() is root
        and not w.isHidden()
    ]


def _describe(widget: QWidget) -> str:
    chain, parent = [], widget
    while parent is not None and len(chain) < 4:
        chain.append(parent.objectName() or type(parent).__name__)
        parent = parent.parentWidget()
    return " < ".join(chain)


def test_every_control_of_the_window_has_a_name(qtbot, qloop, tmp_path) -> None:
    async def scenario() -> tuple[list[str], int]:
        options = SessionOptions(data_dir=tmp_path / "home", demo=True, demo_job_seconds=0.05)
        session = Session(options)
        window = await session.open()
        try:
            await background_controller(session)
            window.presets.select("Soft gradient (model-free)")
            window.composer.seeds.count.setValue(4)
            window.composer.queue_button.click()
            await until(lambda: window.model.rowCount() == 4)
            await until(lambda: window.sheet.model.rowCount() == 4)
            window.presets.select("Portrait txt2img (SD 1.5)")  # its lists: combo boxes
            server = window.controller.status.server
            catalogues = window.composer.catalogues
            await until(lambda: bool(catalogues.catalogues([server])))  # the server's lists
            window.show_tab(0)
            window.grab()  # laid out and polished, as shown
            buddies = _buddy_names(window)
            controls = _walked(window)
            combos = [w for w in controls if isinstance(w, QComboBox)]
            for combo in combos:
                combo.ensurePolished()  # as before it is first shown
            unnamed = [_describe(w) for w in controls if not _name(w, buddies)]
            unnamed += [
                f"the popup of {_describe(c)}"
                for c in combos
                if c.view().accessibleName() in ("", "Choices: choices")
            ]
            return unnamed, len(controls)
        finally:
            await session.close()

    unnamed, count = qloop.run_until_complete(scenario())
    print(f"\naccessible names: {count} controls walked, {count - len(unnamed)} named")
    assert not unnamed, "unnamed controls:\n" + "\n".join(unnamed)
    assert count >= 40

"""The contact sheet's tools row wraps onto a second line where the pane is narrow (200 %
scale) instead of widening the pane past the window; hidden tools take no room; and controls
deleted under it (by Qt, at once or later) never leave it holding a dead object (the window's
crash "Internal C++ object (PySide6.QtWidgets.QWidgetItem) already deleted")."""

from __future__ import annotations

import random

import shiboken6
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QPushButton

from desktop.sheet.flow_layout import FlowRow


def row(qtbot, labels: list[str]) -> tuple[FlowRow, list[QPushButton]]:
    flow = FlowRow()
    qtbot.addWidget(flow)
    buttons = [QPushButton(label) for label in labels]
    for button in buttons:
        flow.add(button)
    return flow, buttons


def test_a_row_too_wide_wraps_and_every_control_stays_inside(qtbot) -> None:
    labels = ["All pictures", "Export starred…", "Trash rejected…", "Export grid…"]
    flow, buttons = row(qtbot, labels)
    one_line = flow.sizeHint()
    narrow = one_line.width() * 2 // 3
    assert flow.minimumSizeHint().width() < narrow, "it may be narrower than one line"
    assert flow.heightForWidth(narrow) > one_line.height(), "a second line is made room for"
    flow.resize(narrow, flow.heightForWidth(narrow))
    flow.show()
    qtbot.waitExposed(flow)
    tops = {button.geometry().top() for button in buttons}
    assert len(tops) == 2
    assert all(button.geometry().right() < narrow for button in buttons)

    flow.resize(one_line.width(), one_line.height())
    qtbot.wait(10)
    assert len({button.geometry().top() for button in buttons}) == 1
    assert flow.heightForWidth(one_line.width()) == one_line.height()


def test_hidden_controls_take_no_room(qtbot) -> None:
    flow, buttons = row(qtbot, ["All pictures", "Export starred…", "Export grid…"])
    wide = flow.sizeHint().width()
    buttons[2].hide()  # no grid: no Export grid…
    assert flow.sizeHint().width() < wide - buttons[2].sizeHint().width() + 1
    buttons[2].show()
    assert flow.sizeHint().width() == wide


def test_controls_deleted_under_the_row_while_it_relays_out_never_leave_a_dead_one(qtbot) -> None:
    """The crash's pattern, many times over: controls deleted at once (as Qt deletes a widget's
    children) and later (``deleteLater``, run inside the next event loop), others added, hidden
    and shown, while the row is measured and resized between each step."""
    rng = random.Random(30)
    flow, buttons = row(qtbot, [f"Tool {n}" for n in range(6)])
    flow.show()
    qtbot.waitExposed(flow)
    alive = list(buttons)
    for step in range(400):
        action = rng.randrange(5)
        if action == 0 and alive:
            shiboken6.delete(alive.pop(rng.randrange(len(alive))))  # C++ deletes it now
        elif action == 1 and alive:
            alive.pop(rng.randrange(len(alive))).deleteLater()
        elif action == 2:
            button = QPushButton(f"New {step}")
            flow.add(button)
            alive.append(button)
        elif action == 3 and alive:
            button = alive[rng.randrange(len(alive))]
            button.setVisible(button.isHidden())
        flow.resize(rng.randrange(40, 600), 80)
        flow.sizeHint(), flow.minimumSizeHint(), flow.heightForWidth(rng.randrange(40, 600))
        if step % 7 == 0:
            QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
            QApplication.processEvents()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    shown = [button for button in alive if not button.isHidden()]
    assert flow.shown() == [b for b in flow.shown() if shiboken6.isValid(b)]
    assert set(flow.shown()) == set(shown)
    assert flow.sizeHint().width() >= sum(button.sizeHint().width() for button in shown)


def test_a_control_deleted_by_qt_leaves_the_row(qtbot) -> None:
    flow, buttons = row(qtbot, ["All pictures", "Export starred…", "Export grid…"])
    wide = flow.sizeHint().width()
    shiboken6.delete(buttons[1])
    assert flow.shown() == [buttons[0], buttons[2]]
    assert flow.sizeHint().width() < wide

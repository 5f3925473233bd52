"""The contact sheet's tools row wraps onto a second line where the pane is narrow (200 %
scale) instead of widening the pane past the window; hidden tools take no room."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton, QWidget

from desktop.sheet.flow_layout import FlowLayout


def row(qtbot, labels: list[str]) -> tuple[QWidget, list[QPushButton]]:
    holder = QWidget()
    qtbot.addWidget(holder)
    layout = FlowLayout(holder)
    layout.setContentsMargins(0, 0, 0, 0)
    buttons = [QPushButton(label, holder) for label in labels]
    for button in buttons:
        layout.addWidget(button)
    return holder, buttons


def test_a_row_too_wide_wraps_and_every_control_stays_inside(qtbot) -> None:
    labels = ["All pictures", "Export starred…", "Trash rejected…", "Export grid…"]
    holder, buttons = row(qtbot, labels)
    layout = holder.layout()
    one_line = layout.sizeHint()
    narrow = one_line.width() * 2 // 3
    assert layout.minimumSize().width() < narrow, "it may be narrower than one line"
    assert layout.heightForWidth(narrow) > one_line.height(), "a second line is made room for"
    holder.resize(narrow, layout.heightForWidth(narrow))
    holder.show()
    qtbot.waitExposed(holder)
    tops = {button.geometry().top() for button in buttons}
    assert len(tops) == 2
    assert all(button.geometry().right() < narrow for button in buttons)

    holder.resize(one_line.width(), one_line.height())
    qtbot.wait(10)
    assert len({button.geometry().top() for button in buttons}) == 1
    assert layout.heightForWidth(one_line.width()) == one_line.height()


def test_hidden_controls_take_no_room(qtbot) -> None:
    holder, buttons = row(qtbot, ["All pictures", "Export starred…", "Export grid…"])
    layout = holder.layout()
    wide = layout.sizeHint().width()
    buttons[2].hide()  # no grid: no Export grid…
    assert layout.sizeHint().width() < wide - buttons[2].sizeHint().width() + 1

"""The question for a dropped workflow named as a preset with other content."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMessageBox, QPushButton

from desktop.presets.preset_files import SameName
from desktop.presets.same_name import ask_same_name, same_name_box


def test_the_question_offers_update_and_keep_both_update_first(qtbot) -> None:
    box = same_name_box(None, "Fox portrait")
    qtbot.addWidget(box)
    update = box.findChild(QPushButton, "update")
    keep = box.findChild(QPushButton, "keep_both")
    assert (update.text(), keep.text()) == ("Update 'Fox portrait'", "Keep both")
    assert update.accessibleName()
    assert keep.accessibleName()
    assert keep.toolTip()
    assert box.defaultButton() is update
    assert "kept as a version" in box.text()


@pytest.mark.parametrize(
    ("button", "answer"),
    [("update", SameName.update), ("keep_both", SameName.keep_both), (None, None)],
)
def test_the_answer_is_the_button_clicked(qtbot, monkeypatch, button, answer) -> None:
    def click(box: QMessageBox) -> int:
        target = (
            box.findChild(QPushButton, button)
            if button
            else box.button(QMessageBox.StandardButton.Cancel)
        )
        target.click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", click)
    chosen = ask_same_name(None, "Fox portrait")
    assert chosen is answer

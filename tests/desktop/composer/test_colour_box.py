"""Tests for desktop.composer.colour_box: a colour input reads #RRGGBB and the swatch picks one."""

from __future__ import annotations

from desktop.composer.batch_composer import BatchComposerWidget
from desktop.presets.preset_files import add_preset_file
from tests.desktop.conftest import GRADIENT


def test_a_colour_input_reads_as_a_colour_and_the_swatch_picks_one(
    qtbot, ledger, controller, monkeypatch
) -> None:
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QColorDialog

    from desktop.composer.colour_box import ColourBox

    name = add_preset_file(ledger, GRADIENT).name
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(name)
    editor = composer.parameters_box.editor("1.color")
    assert isinstance(editor, ColourBox)
    assert editor.text() == "#3399FF", "EmptyImage's 3381759, as ComfyUI shows it"
    picked = QColor("#FF8000")
    monkeypatch.setattr(QColorDialog, "getColor", staticmethod(lambda *_args: picked))
    editor.swatch.trigger()
    assert composer.spec().overrides["1.color"] == 0xFF8000
    editor.lineEdit().setText("#00ff00")
    editor.interpretText()
    assert composer.spec().overrides["1.color"] == 0x00FF00
    assert composer.parameters_box.editor("2.blur_radius").text() == "3", "other numbers stay"
    composer.grid.setChecked(True)
    composer.grid.x_input.setCurrentIndex(composer.grid.x_input.findData("1.color"))
    composer.grid.x_values.setText("#FF0000, #00ff00, 255")
    composer.queue_button.click()
    assert sorted(job.params["1.color"] for job in ledger.jobs()) == [255, 0x00FF00, 0xFF0000]

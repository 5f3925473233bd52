"""The composer keeps the artist's choices per preset, across switches and restarts; "Reset to
preset" and "Save as preset…" (asking before replacing)."""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QMessageBox

from core.batch import SeedMode
from core.ledger import Ledger
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.presets.preset_files import add_preset_file
from tests.desktop.composer.conftest import make_pictures
from tests.desktop.conftest import GRADIENT
from tests.desktop.fakes import FakeController
from tests.desktop.helpers import answer_question


def editor_for(composer, ref):
    return next(
        editor for parameter, editor in composer.parameters_box.editors if str(parameter.ref) == ref
    )


def new_composer(qtbot, ledger, controller, name):
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(name)
    return composer


def edit(composer) -> None:
    composer.seeds.mode.setCurrentIndex(composer.seeds.mode.findData("explicit"))
    composer.seeds.values.setText("3, 9, 27")
    editor_for(composer, "6.text").setPlainText("a heron at dawn")
    editor_for(composer, "5.width").setValue(768)
    composer.grid.setChecked(True)
    composer.grid.x_input.setCurrentIndex(composer.grid.x_input.findData("3.cfg"))
    composer.grid.x_values.setText("4, 7.5")


def assert_edited(composer) -> None:
    assert composer.seeds.current_mode() is SeedMode.explicit
    assert composer.seeds.explicit_values() == (3, 9, 27)
    assert editor_for(composer, "6.text").toPlainText() == "a heron at dawn"
    assert editor_for(composer, "5.width").value() == 768
    assert composer.grid.axes()[0].input == "3.cfg"
    assert composer.queue_button.text() == "Queue 6 jobs"


def test_edits_survive_a_preset_switch(qtbot, ledger, controller, preset_name) -> None:
    other = add_preset_file(ledger, GRADIENT, ["1.color"]).name
    composer = new_composer(qtbot, ledger, controller, preset_name)
    edit(composer)
    composer.set_preset(other)
    assert composer.seeds.current_mode() is SeedMode.sequence
    composer.set_preset(preset_name)
    assert_edited(composer)


def test_edits_survive_a_restart(qtbot, tmp_path, controller, preset_name, ledger) -> None:
    composer = new_composer(qtbot, ledger, controller, preset_name)
    edit(composer)
    composer.seeds.start.setValue(5)  # hidden in explicit mode, kept all the same
    ledger.close()
    with Ledger(tmp_path / "ledger") as reopened:
        again = new_composer(qtbot, reopened, FakeController(reopened), preset_name)
        assert_edited(again)
        assert again.seeds.start.value() == 5


def test_reset_to_preset(qtbot, ledger, controller, preset_name) -> None:
    composer = new_composer(qtbot, ledger, controller, preset_name)
    edit(composer)
    composer.reset_button.click()
    assert composer.values() == {}
    assert composer.grid.axes() == ()
    assert composer.seeds.current_mode() is SeedMode.sequence
    composer.set_preset(preset_name)
    assert composer.values() == {}


def test_save_as_a_new_preset(qtbot, ledger, controller, preset_name, monkeypatch) -> None:
    composer = new_composer(qtbot, ledger, controller, preset_name)
    editor_for(composer, "6.text").setPlainText("a heron at dawn")
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Heron", True))
    with qtbot.waitSignal(composer.memory.preset_saved):
        composer.save_button.click()
    assert ledger.presets.get("Heron").api_workflow["6"]["inputs"]["text"] == "a heron at dawn"
    assert composer.preset_name == "Heron"
    assert composer.values() == {}, "the new preset's own values are the ones set"
    original = ledger.presets.get(preset_name).api_workflow["6"]["inputs"]["text"]
    assert original != "a heron at dawn"


def test_overwriting_asks_first(qtbot, ledger, controller, preset_name, monkeypatch) -> None:
    composer = new_composer(qtbot, ledger, controller, preset_name)
    editor_for(composer, "6.text").setPlainText("a heron at dawn")
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: (preset_name, True))
    asked: list[str] = []

    answer_question(QMessageBox.StandardButton.Cancel, asked)
    composer.save_button.click()
    assert len(asked) == 1
    assert preset_name in asked[0]
    assert ledger.presets.get(preset_name).api_workflow["6"]["inputs"]["text"] != "a heron at dawn"
    answer_question(QMessageBox.StandardButton.Yes, asked)
    composer.save_button.click()
    assert ledger.presets.get(preset_name).api_workflow["6"]["inputs"]["text"] == "a heron at dawn"
    assert composer.values() == {}


def test_pictures_axes_walks_and_wildcard_modes_survive_a_restart(
    qtbot, ledger, controller, img2img_name, tmp_path
) -> None:
    composer = new_composer(qtbot, ledger, controller, img2img_name)
    make_pictures(tmp_path / "renders", 3)
    [cat] = make_pictures(tmp_path / "single", 1, stem="cat")
    composer.parameters_box.picture_fields["10.image"].set_path(cat)
    composer.grid.setChecked(True)
    x, y = composer.grid.rows
    x.input.setCurrentIndex(x.input.findData("10.image"))
    x.take_dropped([tmp_path / "renders"])
    y.input.setCurrentIndex(y.input.findData("6.text"))
    y.texts.setPlainText("one\ntwo\nthree")
    y.zip.setChecked(True)
    third = composer.grid.add_axis()
    third.input.setCurrentIndex(third.input.findData("3.sampler_name"))
    third.set_checked(["euler", "ddim"])
    editor_for(composer, "7.text").setPlainText("{ugly|blurry}")
    row = composer.wildcards._rows["7.text"]
    row.mode.setCurrentIndex(row.mode.findData("all"))
    before = composer.spec()

    again = new_composer(qtbot, ledger, controller, img2img_name)
    assert again.spec() == before
    assert again.spec().zips == (("10.image", "6.text"),)
    assert again.spec().wildcards == {"7.text": "all"}
    assert again.parameters_box.picture_fields["10.image"].path == cat
    assert [row.caption.text() for row in again.grid.rows][2] == "Y (rows)"
    assert again.grid.rows[0].count_text() == "3 pictures"
    assert again.job_count() == composer.job_count()

"""Tests for desktop.composer.seed_editor: counted, listed or random seeds, the inputs varied."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox

from core.batch import SeedMode
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.presets.preset_files import add_preset_file
from tests.desktop.conftest import GRADIENT


def test_explicit_and_random_seeds(composer) -> None:
    composer.seeds.mode.setCurrentIndex(composer.seeds.mode.findData("explicit"))
    composer.seeds.values.setText("7, 42 99")
    assert composer.spec().seeds.values == (7, 42, 99)
    assert composer.queue_button.text() == "Queue 3 jobs"
    composer.seeds.mode.setCurrentIndex(composer.seeds.mode.findData("random"))
    composer.seeds.count.setValue(4)
    assert composer.spec().seeds.mode is SeedMode.random
    assert composer.job_count() == 4


def test_unchecking_every_seed_input_keeps_seeds(composer) -> None:
    composer.seeds._checks[0][1].setChecked(False)
    assert composer.spec().seeds.mode is SeedMode.keep
    assert composer.queue_button.text() == "Queue 1 job"


def test_a_preset_without_seed_input_varies_the_integer_input_chosen(
    qtbot, ledger, controller
) -> None:
    name = add_preset_file(ledger, GRADIENT).name
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(name)
    assert composer.job_count() == 1
    assert composer.seeds.chosen.findData("1.color") > 0, "any integer input is offered"
    composer.seeds.chosen.setCurrentIndex(composer.seeds.chosen.findData("1.color"))
    assert composer.seeds.count.isEnabled()
    composer.seeds.count.setValue(2)
    composer.seeds.start.setValue(7)
    assert composer.queue_button.text() == "Queue 2 jobs"
    composer.queue_button.click()
    assert [job.params for job in ledger.jobs()] == [{"1.color": 7}, {"1.color": 8}]
    composer.set_preset(name)
    assert composer.seeds.varied_refs() == ["1.color"], "the choice is kept"


def test_the_previous_presets_seed_checkboxes_go_at_once(composer) -> None:
    """A preset switched inside a context menu's own event loop (where ``deleteLater`` waits)
    shows only the new preset's seed checkboxes, not the old ones beside them."""
    seeds = composer.seeds
    inputs = tuple(seed for seed, _check in seeds._checks)
    assert inputs
    seeds.set_inputs(inputs)  # no event loop runs in between
    boxes = seeds.inputs_box.findChildren(QCheckBox)
    assert [box for box in boxes if not box.isHidden()] == [check for _s, check in seeds._checks]


def test_a_colour_varied_reads_as_hex_in_start_step_and_list(qtbot, ledger, controller, plain_name):
    """A preset without seed input varying its colour (EmptyImage's ``color``): Start, Step and
    the list read and take ``#RRGGBB``, as the colour's own field does, never 3381759."""
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(plain_name)
    seeds = composer.seeds
    seeds.chosen.setCurrentIndex(seeds.chosen.findData("1.color"))
    seeds.start.setValue(0x3399FF)
    assert seeds.start.text() == "#3399FF"
    assert seeds.step.text() == "#000001"
    seeds.start.lineEdit().setText("#ff0000")
    seeds.start.interpretText()
    assert seeds.start.value() == 0xFF0000
    seeds.mode.setCurrentIndex(seeds.mode.findData("explicit"))
    seeds.values.setText("#3399FF, #000000 #FFFFFF")
    assert seeds.plan().values == (0x3399FF, 0, 0xFFFFFF)
    assert composer.queue_button.text() == "Queue 3 jobs"
    seeds.mode.setCurrentIndex(seeds.mode.findData("sequence"))
    seeds.chosen.setCurrentIndex(seeds.chosen.findData("1.width"))
    assert seeds.start.text() == str(0xFF0000), "a width is a number again"
    axis = composer.grid.rows[0]
    axis.choose("1.color")
    assert "#3399FF" in axis.line.placeholderText()

"""Files the server does not list (a checkpoint here) are marked in the composer, against the
simulator's own node catalogue, and queueing asks first (the server's offer stored, as the
controller stores it on connecting)."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QMessageBox

from core.placement.server_offer import offer_from_object_info
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.presets.preset_files import add_preset_file
from tests.desktop.conftest import TXT2IMG
from tests.desktop.helpers import answer_question, until


def test_a_checkpoint_the_server_lacks_is_marked_and_asked_about(
    qtbot, qloop, ledger, controller, tmp_path, slow_sim
) -> None:
    workflow = json.loads(TXT2IMG.read_text("utf-8"))
    workflow["4"]["inputs"]["ckpt_name"] = "gone.safetensors"
    (tmp_path / "gone.json").write_text(json.dumps(workflow), "utf-8")
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(add_preset_file(ledger, tmp_path / "gone.json").name)
    ckpt = composer.parameters_box.editor("4.ckpt_name")
    assert not ckpt.styleSheet(), "nothing is marked before the server's catalogue is known"
    composer.parameters_box.editor("3.steps").setValue(30)

    async def connect() -> None:
        controller.push(server=slow_sim.url)
        await until(lambda: bool(composer.catalogues.catalogues([slow_sim.url])))
        ((_, catalogue),) = composer.catalogues.catalogues([slow_sim.url])
        ledger.server_offers.store(slow_sim.url, offer_from_object_info(catalogue))

    qloop.run_until_complete(connect())
    ckpt = composer.parameters_box.editor("4.ckpt_name")
    assert ckpt.findData("sd_xl_base_1.0.safetensors") >= 0, "the server's models to choose from"
    assert "#c42b1c" in ckpt.styleSheet()
    assert "does not have “gone.safetensors”" in ckpt.toolTip()
    assert ckpt.toolTip().startswith("Load Checkpoint · ckpt_name")
    assert composer.parameters_box.editor("3.steps").value() == 30, "edits kept"
    assert not composer.parameters_box.editor("3.sampler_name").styleSheet()

    asked: list[str] = []

    composer.seeds.count.setValue(2)
    answer_question(QMessageBox.StandardButton.Cancel, asked)
    composer.queue_button.click()
    assert len(asked) == 1
    assert "gone.safetensors" in asked[0]
    assert ledger.jobs() == []
    answer_question(QMessageBox.StandardButton.Yes, asked)
    composer.queue_button.click()
    assert len(ledger.jobs()) == 2

    ckpt.setCurrentIndex(ckpt.findData("v1-5-pruned-emaonly.safetensors"))
    assert not ckpt.styleSheet(), "a model the server has: no longer marked"


def test_a_choice_missing_from_the_list_is_kept_not_replaced(qtbot) -> None:
    from core.presets import InputRef, Parameter
    from desktop.composer.parameter_editors import editor_value, make_editor

    parameter = Parameter(
        ref=InputRef("3", "sampler_name"),
        node_title="KSampler",
        class_type="KSampler",
        type="COMBO",
        value="my_sampler",
        choices=("euler", "ddim"),
    )
    editor = make_editor(parameter)
    qtbot.addWidget(editor)
    assert editor_value(editor, parameter) == "my_sampler"

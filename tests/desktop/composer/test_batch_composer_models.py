"""Files the server does not list (a checkpoint here) are marked in the composer, against the
simulator's own node catalogue, and queueing asks first (the server's offer stored, as the
controller stores it on connecting)."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QMessageBox

from core.placement.server_offer import offer_from_object_info
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.presets.preset_files import add_preset_file
from tests.core.controller.model_servers import model_servers
from tests.desktop.conftest import TXT2IMG
from tests.desktop.helpers import answer_question, until

__all__ = ["model_servers"]


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


def test_what_each_server_lacks_is_said_at_the_top_with_its_own_files_to_pick(
    qtbot, qloop, ledger, controller, tmp_path, model_servers
) -> None:
    """A workflow arrives naming a checkpoint one server lacks and a picture neither has: the
    top of the composer says so per server (which have it, which lack it), before any Queue,
    each red field says why, and picking one of a server's files sets the field."""
    from PIL import Image

    from core.controller.placing_said import host_text
    from tests.core.controller.model_servers import REFINER
    from tests.desktop.composer.conftest import IMG2IMG

    full, base = model_servers.full, model_servers.base_only
    folder = base.call(lambda simulator: simulator.input_dir)
    Image.new("RGB", (8, 8), (200, 90, 40)).save(folder / "cat.png")
    workflow = json.loads(IMG2IMG.read_text("utf-8"))["prompt"]
    workflow["14"]["inputs"]["ckpt_name"] = REFINER
    workflow["10"]["inputs"]["image"] = "fox.png"
    (tmp_path / "fox.json").write_text(json.dumps(workflow), "utf-8")
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(add_preset_file(ledger, tmp_path / "fox.json").name)
    assert composer.missing.isHidden(), "nothing is said before a server's catalogue is known"

    async def connect() -> None:
        controller.push(server=f"{base.url},{full.url}")
        await until(lambda: len(composer.catalogues.catalogues([base.url, full.url])) == 2)

    qloop.run_until_complete(connect())
    b, f = host_text(base.url), host_text(full.url)
    said = composer.missing.text()
    assert said == (
        f"On {b}: model “{REFINER}” (Load Checkpoint · ckpt_name) is missing ({f} has it); "
        "picture “fox.png” (Load Image · image) is missing.\n"
        f"On {f}: picture “fox.png” (Load Image · image) is missing."
    )
    assert not composer.missing.isHidden()
    assert composer.layout().indexOf(composer.missing) == 1, "at the top, under the title"
    ckpt = composer.parameters_box.editor("14.ckpt_name")
    assert "#c42b1c" in ckpt.styleSheet()
    assert ckpt.toolTip().startswith(f"Load Checkpoint · ckpt_name: {b} does not have")
    assert f"{f} has it" in ckpt.toolTip()
    picture = composer.parameters_box.picture_fields["10.image"]
    assert "does not have “fox.png”" in picture.name.toolTip()
    names = [p.accessibleName() for p in composer.missing.pickers]
    assert names == [
        f"Instead of {REFINER} on {b}",
        f"Instead of fox.png on {b}",
        f"Instead of fox.png on {f}",
    ]
    models, pictures = composer.missing.pickers[:2]
    offered = [models.itemData(i) for i in range(1, models.count())]
    assert "sd_xl_base_1.0.safetensors" in offered
    assert REFINER not in offered, "only that server's own files"
    assert pictures.findData("cat.png") > 0, "the server's input folder, as it is now"

    models.activated.emit(models.findData("sd_xl_base_1.0.safetensors"))
    assert ckpt.currentData() == "sd_xl_base_1.0.safetensors"
    assert not ckpt.styleSheet(), "a model both servers have: no longer marked"
    assert composer.values()["14.ckpt_name"] == "sd_xl_base_1.0.safetensors"
    (pictures,) = (p for p in composer.missing.pickers if p.accessibleName().endswith(b))
    pictures.activated.emit(pictures.findData("cat.png"))
    assert picture.server_name == "cat.png"
    assert composer.spec().overrides["10.image"] == "cat.png"
    assert composer.missing.text() == (
        f"On {f}: picture “cat.png” (Load Image · image) is missing ({b} has it).\n"
        f"{b} has everything."
    )
    composer.seeds.count.setValue(1)
    composer.queue_button.click()
    assert composer.error_line.isHidden(), composer.error_line.text()
    (job,) = ledger.jobs()
    assert (job.params["14.ckpt_name"], job.params["10.image"]) == (
        "sd_xl_base_1.0.safetensors",
        "cat.png",
    ), "the files picked are the job's"
    after_picks = composer.missing.text()
    composer.set_preset(add_preset_file(ledger, TXT2IMG).name)
    assert "fox.png" not in composer.missing.text(), "the other preset's own fields"
    composer.set_preset("fox")
    assert composer.missing.text() == after_picks, "said as soon as the preset is switched to"

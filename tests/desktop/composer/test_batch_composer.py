"""The composer turns the artist's choices into the right BatchSpec and queues it."""

from __future__ import annotations

import json
from pathlib import Path

from core.batch import SeedMode
from core.inputs.picture_ref import PictureRef
from core.job_state import JobState
from desktop.composer.batch_composer import BatchComposerWidget
from desktop.presets.preset_files import add_preset_file
from tests.core.controller.model_servers import model_servers
from tests.desktop.composer.conftest import drop_on, make_pictures
from tests.desktop.conftest import GRADIENT

__all__ = ["model_servers"]


def editor_for(composer, ref):
    return next(
        editor for parameter, editor in composer.parameters_box.editors if str(parameter.ref) == ref
    )


def test_counted_seeds_and_changed_parameters(composer) -> None:
    composer.seeds.count.setValue(5)
    composer.seeds.start.setValue(100)
    composer.seeds.step.setValue(10)
    editor_for(composer, "3.steps").setValue(30)
    editor_for(composer, "6.text").setPlainText("a heron at dawn")
    composer.requester.setText("mia")
    composer.priority.setValue(2)
    spec = composer.spec()
    assert spec.seeds.mode is SeedMode.sequence
    assert (spec.seeds.count, spec.seeds.start, spec.seeds.step) == (5, 100, 10)
    assert spec.overrides == {"3.steps": 30, "6.text": "a heron at dawn"}
    assert (spec.requester, spec.priority) == ("mia", 2)
    assert composer.queue_button.text() == "Queue 5 jobs"


def test_queue_writes_the_batch_through_the_controller(composer, controller, ledger) -> None:
    composer.seeds.count.setValue(3)
    composer.queue_button.click()
    name, call = controller.calls[-1]
    assert name == "queue_batch"
    assert call[2] == ["3.seed"]
    jobs = ledger.jobs()
    assert [job.params["3.seed"] for job in jobs] == [0, 1, 2]
    assert {job.state for job in jobs} == {JobState.pending}


def test_composition_errors_are_shown_not_raised(composer, ledger) -> None:
    failed: list[str] = []
    composer.failed.connect(failed.append)
    composer.seeds.mode.setCurrentIndex(composer.seeds.mode.findData("explicit"))
    composer.seeds.values.setText("5, 5")
    composer.queue_button.click()
    assert "repeats 5" in failed[-1]
    assert ledger.jobs() == []


def test_model_free_preset_varies_its_named_seed_input(qtbot, ledger, controller) -> None:
    name = add_preset_file(ledger, GRADIENT, ["1.color"]).name
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(name)
    composer.seeds.count.setValue(3)
    composer.seeds.step.setValue(40000)
    composer.queue_button.click()
    assert [job.params for job in ledger.jobs()] == [
        {"1.color": 0},
        {"1.color": 40000},
        {"1.color": 80000},
    ]


def test_ctrl_enter_queues(composer, controller, qtbot) -> None:
    composer.seeds.count.setValue(2)
    composer.queue_action.trigger()
    assert controller.names() == ["queue_batch"]


def test_prompts_are_labelled_by_title_or_wiring(qtbot, ledger, controller, tmp_path) -> None:
    pair = (
        Path(__file__).parents[2] / "data" / "golden-pairs" / "controlnet_controlnet_example.json"
    )
    path = tmp_path / "controlnet.json"
    path.write_text(json.dumps(json.loads(pair.read_text("utf-8"))["workflow"]), "utf-8")
    composer = BatchComposerWidget(ledger, controller)
    qtbot.addWidget(composer)
    composer.set_preset(add_preset_file(ledger, path).name)
    form = composer.parameters_box
    labels = [form.label_of(editor) for _parameter, editor in form.editors]
    assert labels[:2] == ["Positive prompt · text", "Negative prompt · text"]


# --- pictures: one job per picture -------------------------------------------------------------


def test_a_folder_dropped_on_a_picture_field_queues_one_job_per_picture(
    qtbot, img2img, controller, tmp_path
) -> None:
    pictures = make_pictures(tmp_path / "renders", 12)
    field = img2img.parameters_box.picture_fields["10.image"]
    assert drop_on(field, [tmp_path / "renders"])
    row = img2img.grid.rows[0]
    assert row.input.currentData() == "10.image"
    assert row.count.text() == "— 12 pictures"
    assert img2img.queue_button.text() == "Queue 12 jobs"
    with qtbot.waitSignal(img2img.batch_queued) as queued:
        img2img.queue()
    assert queued.args[1] == 12
    [(_preset, spec, _seeds)] = [args for call, args in controller.calls if call == "queue_batch"]
    values = [PictureRef.from_param(value) for value in spec.grid[0].values]
    assert [ref.file for ref in values if ref] == [p.name for p in pictures]  # natural order
    assert img2img.error_line.isHidden()


def test_a_picture_chosen_for_the_field_is_every_jobs_picture(
    img2img, controller, tmp_path
) -> None:
    [picture] = make_pictures(tmp_path, 1, stem="cat")
    field = img2img.parameters_box.picture_fields["10.image"]
    assert drop_on(field, [picture])
    assert field.name.text() == "cat1.png"
    assert img2img.queue_button.text() == "Queue 1 job"
    img2img.queue()
    [(_preset, spec, _seeds)] = [args for call, args in controller.calls if call == "queue_batch"]
    ref = PictureRef.from_param(spec.overrides["10.image"])
    assert ref is not None
    assert ref.source == str(picture)


def test_a_file_refused_names_itself_and_nothing_is_queued(img2img, controller, tmp_path) -> None:
    make_pictures(tmp_path / "renders", 2)
    (tmp_path / "renders" / "render3.png").write_text("a text file, named .png")
    assert drop_on(img2img.parameters_box.picture_fields["10.image"], [tmp_path / "renders"])
    assert img2img.queue_button.text() == "Queue 3 jobs"
    img2img.show()
    img2img.queue()
    assert [call for call, _args in controller.calls if call == "queue_batch"] == []
    assert img2img.error_line.isVisible()
    assert "render3.png" in img2img.error_line.text()


def test_a_preset_switch_composes_with_the_new_presets_fields(
    composer, ledger, model_servers, plain_name
) -> None:
    """Switching from a preset whose fields were changed and varied to one with other nodes:
    the count, the Queue button and the jobs are the new preset's own, never the old fields'
    (the monkey's find: a count asked while the fields were rebuilt composed the new
    workflow with the old fields, "node 4 is not in the workflow")."""
    model_servers.store_offers(ledger)  # what each server has is weighed with every count
    old = composer.preset_name
    editor_for(composer, "4.ckpt_name").setText("sd_xl_base_1.0.safetensors")
    editor_for(composer, "5.width").setValue(640)
    composer.grid.setChecked(True)
    composer.grid.rows[0].choose("5.height")
    composer.grid.rows[0].line.setText("512, 768")
    composer.seeds.count.setValue(3)
    assert composer.queue_button.text() == "Queue 6 jobs"
    composer.set_preset("plain")
    assert composer.error_line.isHidden(), composer.error_line.text()
    assert composer.queue_button.text() == "Queue 1 job"
    assert composer.spec().overrides == {}
    assert composer.grid.axes() == ()
    composer.queue_button.click()
    (job,) = ledger.jobs()
    assert ledger.batch(job.batch).preset == "plain"
    assert set(job.params) <= {"1.width", "1.height", "1.batch_size", "1.color"}
    composer.set_preset(old)
    assert composer.queue_button.text() == "Queue 6 jobs", "the old preset's own choices back"

"""Recall in the window: a job's values, its seed alone, or a dropped picture's, in the composer."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from core.batch import BatchSpec, SeedMode, SeedPlan, queue_batch
from core.batch.compose import compose
from core.batch.prompt import prompt_for
from core.batch.queueing import stored_preset
from core.batch.workflow import build_workflow
from core.ledger.marks import Mark
from core.pictures.picks import export_marked
from core.presets import workflow_hash
from desktop.composer.recall import RecallChoice
from desktop.presets.presets_panel import PresetsPanel
from desktop.window.main_window import MainWindow
from simulator.images import pnginfo
from tests.core.helpers import succeed_job
from tests.desktop.helpers import StubDropEvent

COMFY_PNG = Path(__file__).parents[2] / "data" / "comfyui-output-with-workflow.png"


@pytest.fixture
def window(qtbot, ledger, controller, preset_name):
    window = MainWindow(ledger, controller)
    qtbot.addWidget(window)
    return window


@pytest.fixture
def job_ids(ledger, preset_name):
    spec = BatchSpec(seeds=SeedPlan(count=3, start=77), overrides={"3.steps": 33})
    return queue_batch(ledger, preset_name, spec)[1]


def sent_workflow_hash(ledger, job_id: str) -> str:
    job = ledger.job(job_id)
    return workflow_hash(
        build_workflow(ledger.workflow(ledger.batch(job.batch).workflow_hash), job.params)
    )


def composed_hashes(window, ledger, name: str) -> list[str]:
    spec = window.composer.spec()
    return [job.workflow_hash for job in compose(stored_preset(ledger.presets.get(name)), spec)]


def editor_for(composer, ref):
    return composer.parameters_box.editor(ref)


def picture_of(ledger, job_id: str, folder: Path) -> Path:
    """The PNG ComfyUI writes for the prompt Batchline sent for the job."""
    job = ledger.job(job_id)
    batch = ledger.batch(job.batch)
    prompt = prompt_for(ledger.workflow(batch.workflow_hash), job.params, batch.id)
    path = folder / f"{job_id}_1.png"
    Image.new("RGB", (8, 8)).save(path, pnginfo=pnginfo(prompt, None))
    return path


def test_a_job_recalled_queues_exactly_its_workflow_again(
    window, ledger, preset_name, job_ids
) -> None:
    window.presets.select(preset_name)
    editor_for(window.composer, "3.steps").setValue(12)
    assert window.presets.recall_job(job_ids[2]) == preset_name
    assert window.composer.preset_name == preset_name
    assert window.composer.seeds.plan().values == (79,)
    assert composed_hashes(window, ledger, preset_name) == [sent_workflow_hash(ledger, job_ids[2])]
    # Kept as the preset's composer state: a restart shows the recalled values.
    again = MainWindow(ledger, window.controller)
    again.presets.select(preset_name)
    assert composed_hashes(again, ledger, preset_name) == [sent_workflow_hash(ledger, job_ids[2])]
    again.close()


def test_a_job_seed_alone_leaves_the_other_values(window, ledger, preset_name, job_ids) -> None:
    window.presets.select(preset_name)
    editor_for(window.composer, "3.steps").setValue(12)
    window.presets.recall_job(job_ids[1], seed_only=True)
    plan = window.composer.seeds.plan()
    assert (plan.mode, plan.values) == (SeedMode.explicit, (78,))
    assert window.composer.spec().overrides == {"3.steps": 12}


def test_a_job_whose_preset_is_gone_comes_back_as_a_new_preset(
    window, ledger, preset_name, job_ids
) -> None:
    ledger.presets.remove(preset_name)
    window.presets.follow_ledger()
    name = window.presets.recall_job(job_ids[0])
    assert name == f"{preset_name} {job_ids[0]}"
    assert window.presets.current_name() == name == window.composer.preset_name
    assert composed_hashes(window, ledger, name) == [sent_workflow_hash(ledger, job_ids[0])]


def test_an_unknown_job_says_so_in_one_line(window) -> None:
    assert window.presets.recall_job("job_20990101_0001") is None
    assert "job_20990101_0001" in window.banner.text()
    assert "\n" not in window.banner.text()


def test_a_dropped_batchline_picture_asked_applies_its_values(
    window, ledger, preset_name, job_ids, tmp_path, monkeypatch
) -> None:
    picture = picture_of(ledger, job_ids[1], tmp_path)
    asked = []
    monkeypatch.setattr(
        PresetsPanel,
        "ask_recall",
        staticmethod(lambda *a: asked.append(a[2]) or RecallChoice.apply),
    )
    window.dropEvent(StubDropEvent([picture]))
    assert asked == [picture.name]
    assert ledger.presets.names() == [preset_name]  # no new preset
    assert window.composer.preset_name == preset_name
    assert composed_hashes(window, ledger, preset_name) == [sent_workflow_hash(ledger, job_ids[1])]
    assert window.banner.isHidden()


def test_a_dropped_batchline_picture_can_become_its_own_preset(
    window, ledger, preset_name, job_ids, tmp_path, monkeypatch
) -> None:
    picture = picture_of(ledger, job_ids[1], tmp_path)
    monkeypatch.setattr(PresetsPanel, "ask_recall", staticmethod(lambda *a: RecallChoice.add))
    window.dropEvent(StubDropEvent([picture]))
    assert sorted(ledger.presets.names()) == sorted([preset_name, picture.stem])
    assert window.composer.preset_name == picture.stem
    stored = ledger.presets.get(picture.stem).api_workflow
    assert stored["3"]["inputs"]["seed"] == 78
    preset = ledger.presets.get(preset_name).api_workflow
    # The batch folder Batchline saved under is not kept.
    assert stored["9"]["inputs"]["filename_prefix"] == preset["9"]["inputs"]["filename_prefix"]


def test_a_dropped_picture_of_another_workflow_is_added_without_asking(
    window, ledger, monkeypatch
) -> None:
    monkeypatch.setattr(PresetsPanel, "ask_recall", staticmethod(lambda *a: pytest.fail("asked")))
    window.dropEvent(StubDropEvent([COMFY_PNG]))
    assert COMFY_PNG.stem in ledger.presets.names()
    assert window.composer.preset_name == COMFY_PNG.stem


def test_cancelling_the_question_changes_nothing(
    window, ledger, preset_name, job_ids, tmp_path, monkeypatch
) -> None:
    window.presets.select(preset_name)
    before = window.composer.state()
    monkeypatch.setattr(PresetsPanel, "ask_recall", staticmethod(lambda *a: None))
    window.dropEvent(StubDropEvent([picture_of(ledger, job_ids[0], tmp_path)]))
    assert ledger.presets.names() == [preset_name]
    assert window.composer.state() == before


def test_a_seedless_job_recalled_is_one_job_not_the_last_count(window, ledger, plain_name):
    """A workflow without a seed input whose composer varied an integer input 40 times: its job
    recalled is that one picture again ("Queue 1 job"), not 40 jobs of the count kept."""
    window.presets.model.reload()
    window.presets.select("plain")
    composer = window.composer
    composer.seeds.chosen.setCurrentIndex(composer.seeds.chosen.findData("1.width"))
    composer.seeds.count.setValue(40)
    assert composer.queue_button.text() == "Queue 40 jobs"
    spec = BatchSpec(seeds=SeedPlan(mode=SeedMode.keep, count=1))
    (job_id,) = queue_batch(ledger, "plain", spec)[1]
    window.presets.recall_job(job_id)
    assert composer.queue_button.text() == "Queue 1 job"
    assert composed_hashes(window, ledger, "plain") == [sent_workflow_hash(ledger, job_id)]


def test_a_dropped_picture_batchline_exported_recalls_its_exact_values(
    window, ledger, preset_name, job_ids, tmp_path, monkeypatch
) -> None:
    """The copy `Export starred` writes (ComfyUI's chunks and the A1111 text added) is read by
    its workflow: the composer queues exactly the job it was made by."""
    made = picture_of(ledger, job_ids[2], tmp_path)
    succeed_job(ledger, job_ids[2], [str(made)])
    ledger.marks.set([job_ids[2]], Mark.star)
    (copy,) = export_marked(ledger, ledger.job(job_ids[2]).batch, tmp_path / "picks")
    with Image.open(copy) as image:
        assert "parameters" in image.info
    window.presets.select(preset_name)
    editor_for(window.composer, "3.steps").setValue(12)
    monkeypatch.setattr(PresetsPanel, "ask_recall", staticmethod(lambda *a: RecallChoice.apply))
    window.dropEvent(StubDropEvent([copy]))
    assert composed_hashes(window, ledger, preset_name) == [sent_workflow_hash(ledger, job_ids[2])]
    assert window.composer.seeds.plan().values == (79,)


def a1111_picture(path: Path, text: str) -> Path:
    info = PngInfo()
    info.add_text("parameters", text)
    Image.new("RGB", (8, 8)).save(path, pnginfo=info)
    return path


def test_a_dropped_picture_of_another_tool_puts_what_fits_into_the_preset(
    window, ledger, preset_name, tmp_path, monkeypatch
) -> None:
    """Only A1111's `parameters` text (no workflow): prompts, seed, steps, cfg, sampler and size
    go into the current preset's composer without a question; what had no place is said."""
    picture = a1111_picture(
        tmp_path / "leopard.png",
        "a snow leopard on a cliff\nNegative prompt: lowres\n"
        "Steps: 28, Sampler: Euler a, Schedule type: Karras, CFG scale: 6.5, Seed: 31415, "
        "Size: 640x896, Model hash: 6ce0161689, Model: dreamshaper_8, Clip skip: 2",
    )
    monkeypatch.setattr(PresetsPanel, "ask_recall", staticmethod(lambda *a: pytest.fail("asked")))
    window.presets.select(preset_name)
    window.dropEvent(StubDropEvent([picture]))
    assert ledger.presets.names() == [preset_name]  # no new preset
    composer = window.composer
    assert composer.preset_name == preset_name
    assert composer.seeds.plan().values == (31415,)
    overrides = composer.spec().overrides
    assert {k: overrides.get(k) for k in ("3.steps", "3.cfg", "3.sampler_name", "3.scheduler")} == {
        "3.steps": 28,
        "3.cfg": 6.5,
        "3.sampler_name": "euler_ancestral",
        "3.scheduler": "karras",
    }
    assert (overrides.get("5.width"), overrides.get("5.height")) == (640, 896)
    assert overrides.get("6.text") == "a snow leopard on a cliff"
    assert overrides.get("7.text") == "lowres"
    assert window.banner.text() == (
        f"Used the values of leopard.png in “{preset_name}”; not used: "
        "Model hash, Model dreamshaper_8 (no server lists it), Clip skip."
    )


def test_a_dropped_picture_of_another_tool_with_no_preset_chosen_says_what_to_do(
    window, ledger, preset_name, tmp_path
) -> None:
    window.presets.list.clearSelection()
    window.presets.list.setCurrentIndex(window.presets.model.index(-1))
    picture = a1111_picture(tmp_path / "leopard.png", "a cat\nSteps: 20, Seed: 1, CFG scale: 7")
    window.dropEvent(StubDropEvent([picture]))
    assert ledger.presets.names() == [preset_name]
    assert window.banner.text() == (
        "leopard.png holds another tool's parameters and no workflow: choose a preset, "
        "then drop it again to use its values there"
    )

"""Recall: a job's exact values, a ComfyUI PNG's workflow and values, and the matching preset."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.batch.compose import compose
from core.batch.queueing import stored_preset
from core.batch.recall import add_recalled, matching_preset, recall_job, recall_png, structure
from core.batch.spec import SeedMode
from core.batch.workflow import build_workflow
from core.errors import InputError, PresetError
from core.ledger import Ledger, PresetContent, PresetOutcome
from core.presets import workflow_hash
from core.presets.storing import free_name
from tests.core.helpers import NOISE_WORKFLOW

DATA = Path(__file__).parents[2] / "data"
COMFY_PNG = DATA / "comfyui-output-with-workflow.png"


def test_a_job_recalls_the_exact_values_it_ran_with(ledger: Ledger) -> None:
    spec = BatchSpec(
        seeds=SeedPlan(count=2, start=500),
        overrides={"1.width": 96},
        grid=(GridAxis("2.strength", (0.25, 0.75)),),
    )
    _, ids = queue_batch(ledger, "noise", spec)
    job = ledger.job(ids[3])
    recall = recall_job(ledger, job.id)
    assert recall.preset == "noise"
    assert recall.values == {
        "1.width": 96,
        "1.height": 64,
        "1.batch_size": 1,
        "1.color": 8421504,
        "2.seed": 501,
        "2.strength": 0.75,
        "3.filename_prefix": "noise",
    }
    preset = stored_preset(ledger.presets.get("noise"))
    state = recall.composer_state(preset.seed_inputs)
    assert state["seeds"] == {
        "mode": "explicit",
        "count": 1,
        "list": "501",
        "per_input": False,
        "varied": ["2.seed"],
    }
    # Queued again from the recalled state, the job sends the same workflow.
    again = BatchSpec(
        seeds=SeedPlan(SeedMode.explicit, values=(501,)),
        overrides={k: v for k, v in recall.values.items() if k != "2.seed"},
    )
    (same,) = compose(preset, again)
    assert same.workflow_hash == workflow_hash(build_workflow(NOISE_WORKFLOW, job.params))


def test_a_job_whose_preset_changed_shape_is_offered_as_a_new_preset(ledger: Ledger) -> None:
    _, ids = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=1, start=7)))
    rewired = copy.deepcopy(NOISE_WORKFLOW)
    rewired["3"]["inputs"]["images"] = ["1", 0]  # the noise node no longer feeds the save
    ledger.presets.add("noise", PresetContent(workflow_hash(rewired), rewired), replace=True)
    recall = recall_job(ledger, ids[0])
    assert recall.preset is None
    assert recall.name == f"noise {ids[0]}"
    assert add_recalled(ledger, recall, recall.name).outcome == PresetOutcome.created
    assert ledger.presets.get(recall.name).api_workflow["2"]["inputs"]["seed"] == 7
    assert recall_job(ledger, ids[0]).preset == recall.name


def test_structure_ignores_values_and_titles_not_links_or_classes() -> None:
    other = copy.deepcopy(NOISE_WORKFLOW)
    other["1"]["inputs"]["width"] = 1024
    other["2"]["_meta"] = {"title": "Grain"}
    assert structure(other) == structure(NOISE_WORKFLOW)
    other["2"]["class_type"] = "ImageBlur"
    assert structure(other) != structure(NOISE_WORKFLOW)


def test_the_preferred_preset_wins_among_matching_ones(ledger: Ledger) -> None:
    twin = copy.deepcopy(NOISE_WORKFLOW)
    twin["1"]["inputs"]["color"] = 0
    ledger.presets.add("Another", PresetContent(workflow_hash(twin), twin))
    assert matching_preset(ledger, NOISE_WORKFLOW) == "Another"  # case-insensitive order
    assert matching_preset(ledger, NOISE_WORKFLOW, prefer="noise") == "noise"
    assert matching_preset(ledger, {"9": {"class_type": "X", "inputs": {}}}) is None


def test_a_comfyui_png_is_a_new_preset_unless_its_workflow_is_stored(ledger: Ledger) -> None:
    data = COMFY_PNG.read_bytes()
    recall = recall_png(ledger, data, COMFY_PNG)
    assert recall.preset is None
    assert recall.values == {
        "1.width": 96,
        "1.height": 64,
        "1.batch_size": 1,
        "1.color": 3368652,
        "2.filename_prefix": "sample",
    }
    assert recall.name == COMFY_PNG.stem
    assert recall.workflow.editor_workflow is not None  # the PNG's editor graph is kept
    add_recalled(ledger, recall, "From a picture")
    with pytest.raises(InputError, match="noise"):
        add_recalled(ledger, recall, "noise")  # taken by another workflow
    again = recall_png(ledger, data, COMFY_PNG, current="noise")
    assert again.preset == "From a picture"


def test_a_file_that_is_no_png_is_refused_with_its_name(ledger: Ledger, tmp_path: Path) -> None:
    with pytest.raises(PresetError, match=r"^notes\.txt: not a PNG$"):
        recall_png(ledger, b"hello", tmp_path / "notes.txt")
    with pytest.raises(PresetError, match=r"^plain\.png: "):
        recall_png(ledger, COMFY_PNG.read_bytes()[:60], tmp_path / "plain.png")


def test_free_name_counts_past_taken_names_whatever_their_case() -> None:
    assert free_name(["a"], "b") == "b"
    assert free_name(["Portrait", "portrait (2)"], "portrait") == "portrait (3)"


def test_seeds_that_differed_per_input_are_recalled_one_per_input(ledger: Ledger) -> None:
    twice = copy.deepcopy(NOISE_WORKFLOW)
    twice["4"] = {"class_type": "ImageAddNoise", "inputs": {"image": ["2", 0], "seed": 1}}
    twice["4"]["inputs"]["strength"] = 0.5
    ledger.presets.add("twice", PresetContent(workflow_hash(twice), twice))
    spec = BatchSpec(seeds=SeedPlan(count=1, start=40, step=3, per_input=True))
    (job_id,) = queue_batch(ledger, "twice", spec)[1]
    inputs = stored_preset(ledger.presets.get("twice")).seed_inputs
    seeds = recall_job(ledger, job_id).seed_state(inputs)
    assert (seeds["list"], seeds["per_input"], seeds["varied"]) == (
        "40, 43",
        True,
        ["2.seed", "4.seed"],
    )
    assert recall_job(ledger, job_id).seed_state(()) == {}


# --- a picture with only A1111's parameters (another tool's) ------------------------------------

PORTRAIT = Path(__file__).parents[3] / "resources" / "presets" / "Portrait txt2img (SD 1.5).json"
A1111_TEXT = (
    "a snow leopard on a cliff, <lora:furry_detail:0.6>\n"
    "Negative prompt: lowres, watermark\n"
    "Steps: 28, Sampler: DPM++ 2M, Schedule type: Karras, CFG scale: 6.5, Seed: 3141592653, "
    "Size: 640x896, Model hash: 6ce0161689, Model: dreamshaper_8, Clip skip: 2, Version: v1.10.1"
)


def a1111_png(path: Path, text: str = A1111_TEXT) -> Path:
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text("parameters", text)
    Image.new("RGB", (8, 8)).save(path, pnginfo=info)
    return path


def with_portrait(ledger: Ledger, *checkpoints: str) -> None:
    import json

    from core.catalogue import Catalogue
    from core.placement.server_offer import offer_from_object_info

    api = json.loads(PORTRAIT.read_text("utf-8"))
    ledger.presets.add("portrait", PresetContent(workflow_hash(api), api))
    offer = offer_from_object_info(Catalogue.bundled()).with_folder("checkpoints", checkpoints)
    ledger.server_offers.store("http://gpu-1:8188", offer)


def test_an_a1111_picture_gives_what_has_a_place_in_the_current_preset(
    ledger: Ledger, tmp_path: Path
) -> None:
    with_portrait(ledger, "v1-5-pruned-emaonly.safetensors", "sd15/dreamshaper_8.safetensors")
    picture = a1111_png(tmp_path / "leopard.png")
    recall = recall_png(ledger, picture.read_bytes(), picture, "portrait")
    assert recall.parameters_only
    assert recall.preset == "portrait"
    assert recall.values == {
        "6.text": "a snow leopard on a cliff",
        "7.text": "lowres, watermark",
        "3.steps": 28,
        "3.seed": 3141592653,
        "3.cfg": 6.5,
        "3.sampler_name": "dpmpp_2m",
        "3.scheduler": "karras",
        "5.width": 640,
        "5.height": 896,
        "4.ckpt_name": "sd15/dreamshaper_8.safetensors",
    }
    assert recall.unmapped == ("Model hash", "Clip skip", "Version", "LoRA furry_detail")
    assert recall.parameters_text("leopard.png") == (
        "Used the values of leopard.png in “portrait”; not used: "
        "Model hash, Clip skip, Version, LoRA furry_detail."
    )
    preset = stored_preset(ledger.presets.get("portrait"))
    state = recall.composer_state(preset.seed_inputs)
    assert state["seeds"]["list"] == "3141592653"


def test_an_a1111_picture_needs_a_preset_to_go_to(ledger: Ledger, tmp_path: Path) -> None:
    picture = a1111_png(tmp_path / "leopard.png")
    with pytest.raises(PresetError, match=r"^leopard.png holds another tool's parameters"):
        recall_png(ledger, picture.read_bytes(), picture, None)


def test_an_a1111_picture_with_nothing_for_the_preset_is_refused(
    ledger: Ledger, tmp_path: Path
) -> None:
    picture = a1111_png(tmp_path / "leopard.png")
    with pytest.raises(PresetError, match="none of its parameters has a place in “noise”"):
        recall_png(ledger, picture.read_bytes(), picture, "noise")

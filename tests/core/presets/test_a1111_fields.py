"""Tests for core.presets.a1111_fields: a workflow's A1111 fields found (the starting
sampler, its prompts, model, LoRAs and size) and an infotext's values put onto a workflow."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from core.presets.a1111_fields import file_stem, infotext_of, mapped_values, places
from core.presets.infotext import format_infotext, parse_infotext
from tests.core.presets.conftest import PRESETS

PORTRAIT = Path(__file__).parents[3] / "resources" / "presets" / "Portrait txt2img (SD 1.5).json"


@pytest.fixture
def portrait() -> dict[str, Any]:
    return json.loads(PORTRAIT.read_text("utf-8"))


def with_lora(api: dict[str, Any]) -> dict[str, Any]:
    api = copy.deepcopy(api)
    api["10"] = {
        "class_type": "LoraLoader",
        "inputs": {
            "lora_name": "styles/fox_style.safetensors",
            "strength_model": 0.8,
            "strength_clip": 1.0,
            "model": ["4", 0],
            "clip": ["4", 1],
        },
    }
    api["3"]["inputs"]["model"] = ["10", 0]
    return api


def test_a_txt2img_workflow_reads_as_a1111_writes_it(portrait) -> None:
    portrait["3"]["inputs"].update(sampler_name="euler_ancestral", scheduler="karras", seed=42)
    portrait["5"]["inputs"].update(width=512, height=768)
    assert format_infotext(infotext_of(portrait)) == (
        "portrait of a red fox in a misty forest, soft light\n"
        "Negative prompt: blurry, low quality\n"
        "Steps: 20, Sampler: Euler a, Schedule type: Karras, CFG scale: 7, Seed: 42, "
        "Size: 512x768, Model: v1-5-pruned-emaonly"
    )


def test_loras_go_in_the_prompt_and_a_known_hash_is_written(portrait) -> None:
    api = with_lora(portrait)
    hashes = {
        "v1-5-pruned-emaonly.safetensors": "6ce0161689",
        "styles/fox_style.safetensors": "0123456789ab",
    }
    text = format_infotext(infotext_of(api, hashes=hashes))
    assert text.splitlines()[0].endswith("soft light, <lora:fox_style:0.8>")
    assert "Model hash: 6ce0161689, Model: v1-5-pruned-emaonly" in text
    assert text.endswith('Lora hashes: "fox_style: 0123456789ab"')
    assert "Model hash" not in format_infotext(infotext_of(api)), "no hash unless known"


def test_the_base_sampler_of_a_refiner_workflow_is_read() -> None:
    api = json.loads((PRESETS / "api_sdxl_refiner.json").read_text("utf-8"))
    info = infotext_of(api)
    assert info is not None
    assert info.get("Seed") == str(api["10"]["inputs"]["noise_seed"])
    assert info.get("Model") == "sd_xl_base_1.0"
    assert info.size() == (1024, 1024)


def test_a_seed_from_a_primitive_node_and_a_partial_denoise() -> None:
    api = json.loads((PRESETS / "api_primitive_seed.json").read_text("utf-8"))
    api["3"]["inputs"]["denoise"] = 0.6
    info = infotext_of(api)
    assert info is not None
    assert (info.get("Seed"), info.get("Denoising strength")) == ("1234", "0.6")


def test_an_img2img_workflow_takes_the_pictures_size(portrait) -> None:
    portrait["5"] = {"class_type": "VAEEncode", "inputs": {"pixels": ["20", 0], "vae": ["4", 2]}}
    portrait["20"] = {"class_type": "LoadImage", "inputs": {"image": "in.png"}}
    info = infotext_of(portrait, picture_size=(640, 480))
    assert info is not None
    assert info.get("Size") == "640x480"


def test_samplercustom_reads_its_sampler_and_sigmas_nodes() -> None:
    api = {
        "1": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "m.ckpt"}},
        "2": {"class_type": "CLIPTextEncode", "inputs": {"text": "a cat", "clip": ["1", 1]}},
        "3": {"class_type": "CLIPTextEncode", "inputs": {"text": "", "clip": ["1", 1]}},
        "4": {"class_type": "KSamplerSelect", "inputs": {"sampler_name": "dpmpp_2m"}},
        "5": {
            "class_type": "BasicScheduler",
            "inputs": {"scheduler": "karras", "steps": 12, "denoise": 1.0, "model": ["1", 0]},
        },
        "6": {"class_type": "EmptyLatentImage", "inputs": {"width": 64, "height": 64}},
        "7": {
            "class_type": "SamplerCustom",
            "inputs": {
                "add_noise": True,
                "noise_seed": 5,
                "cfg": 6.5,
                "model": ["1", 0],
                "positive": ["2", 0],
                "negative": ["3", 0],
                "sampler": ["4", 0],
                "sigmas": ["5", 0],
                "latent_image": ["6", 0],
            },
        },
    }
    assert format_infotext(infotext_of(api)) == (
        "a cat\nSteps: 12, Sampler: DPM++ 2M, Schedule type: Karras, CFG scale: 6.5, Seed: 5, "
        "Size: 64x64, Model: m"
    )


def test_a_workflow_without_a_sampler_has_no_infotext() -> None:
    assert infotext_of({"1": {"class_type": "EmptyImage", "inputs": {"width": 8}}}) is None


def test_an_infotext_goes_onto_the_workflows_inputs_and_the_rest_is_named(portrait) -> None:
    info = parse_infotext(
        "a cat <lora:cute:0.7>\nNegative prompt: ugly\n"
        "Steps: 30, Sampler: DPM++ 2M Karras, CFG scale: 6.5, Seed: 99, Size: 640x832, "
        "Model hash: 45dee52b, Model: dreamshaper_8, Clip skip: 2"
    )
    values, left = mapped_values(
        portrait, info, ["v1-5-pruned-emaonly.safetensors", "sd/dreamshaper_8.safetensors"]
    )
    assert values == {
        "6.text": "a cat",
        "7.text": "ugly",
        "3.steps": 30,
        "3.seed": 99,
        "3.cfg": 6.5,
        "3.sampler_name": "dpmpp_2m",
        "3.scheduler": "karras",
        "5.width": 640,
        "5.height": 832,
        "4.ckpt_name": "sd/dreamshaper_8.safetensors",
    }
    assert left == ["Model hash", "Clip skip", "LoRA cute"]


def test_what_has_no_place_or_no_comfyui_name_is_left(portrait) -> None:
    info = parse_infotext(
        "a cat\nSteps: 20, Sampler: Restart, Schedule type: Align Your Steps, Seed: x1, "
        "Model: unknown_model"
    )
    values, left = mapped_values(portrait, info, ["v1-5-pruned-emaonly.safetensors"])
    assert values == {"6.text": "a cat", "3.steps": 20}
    assert left == [  # in the text's order
        "Sampler Restart",
        "Schedule type Align Your Steps",
        "Seed",
        "Model unknown_model (no server lists it)",
    ]


def test_what_a_workflow_exports_maps_back_onto_it_exactly(portrait) -> None:
    portrait["3"]["inputs"].update(sampler_name="dpmpp_2m_sde", scheduler="exponential", cfg=4.5)
    values, left = mapped_values(
        portrait,
        parse_infotext(format_infotext(infotext_of(portrait))),
        ["v1-5-pruned-emaonly.safetensors"],
    )
    assert left == []
    assert all(
        portrait[ref.split(".")[0]]["inputs"][ref.split(".")[1]] == v for ref, v in values.items()
    )
    refs = places(portrait).refs
    assert set(values) == {ref for field, ref in refs.items() if field != "denoise"}


def test_model_names_lose_folder_and_extension() -> None:
    assert [file_stem(n) for n in ("a/b/c.safetensors", "x\\y.ckpt", "plain")] == [
        "c",
        "y",
        "plain",
    ]


def test_a_zeroed_out_negative_is_no_negative_prompt(portrait) -> None:
    """Flux workflows feed the sampler's negative a ConditioningZeroOut of the positive."""
    portrait["7"] = {"class_type": "ConditioningZeroOut", "inputs": {"conditioning": ["6", 0]}}
    info = infotext_of(portrait)
    assert info is not None
    assert (info.prompt, info.negative) == (portrait["6"]["inputs"]["text"], "")
    portrait["7"] = {"class_type": "ConditioningCombine", "inputs": {"conditioning_1": ["6", 0]}}
    assert infotext_of(portrait).negative == ""

"""What a job needs: node classes and the model files its prompt names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.placement.model_inputs import KNOWN_INPUTS, is_model_file
from core.placement.needs import ModelNeed, job_needs

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parents[2] / "data" / "golden-pairs"


def refiner_prompt() -> dict[str, Any]:
    """ComfyUI's own SDXL base + refiner example, as its frontend sent it."""
    prompt: dict[str, Any] = json.loads((DATA / "sdxl_refiner_prompt.json").read_text("utf-8"))
    return prompt


def test_the_sdxl_refiner_example_needs_both_checkpoints() -> None:
    needs = job_needs(refiner_prompt())
    assert needs.files == {"sd_xl_base_1.0.safetensors", "sd_xl_refiner_1.0.safetensors"}
    assert needs.main_models == needs.files
    assert [(n.node_id, n.input, n.folder) for n in needs.models] == [
        ("4", "ckpt_name", "checkpoints"),
        ("12", "ckpt_name", "checkpoints"),
    ]
    assert {"CheckpointLoaderSimple", "KSamplerAdvanced", "SaveImage"} <= needs.node_classes


def test_a_need_says_where_it_is_named() -> None:
    prompt = {
        "1": {
            "class_type": "LoraLoader",
            "inputs": {"lora_name": "detail.safetensors", "model": ["2", 0], "clip": ["2", 1]},
            "_meta": {"title": "Detail LoRA"},
        },
        "2": {"class_type": "UNETLoader", "inputs": {"unet_name": "flux1-dev.safetensors"}},
    }
    needs = job_needs(prompt)
    assert needs.models == (
        ModelNeed("detail.safetensors", "loras", "1", "lora_name", "LoraLoader", "Detail LoRA"),
        ModelNeed("flux1-dev.safetensors", "diffusion_models", "2", "unet_name", "UNETLoader"),
    )
    assert needs.main_models == {"flux1-dev.safetensors"}


def test_a_custom_nodes_model_file_is_found_by_its_extension() -> None:
    prompt = {
        "7": {
            "class_type": "UnetLoaderGGUF",
            "inputs": {"unet_name": "flux1-dev-Q4_K_S.gguf", "note": "a cat", "steps": 4},
        }
    }
    (need,) = job_needs(prompt).models
    assert (need.name, need.folder, need.input) == ("flux1-dev-Q4_K_S.gguf", None, "unet_name")
    assert job_needs(prompt).main_models == frozenset()


def test_a_link_is_not_a_value_and_malformed_nodes_are_skipped() -> None:
    prompt: dict[str, Any] = {
        "1": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": ["9", 0]}},
        "2": {"inputs": {"ckpt_name": "x.safetensors"}},
        "3": "not a node",
        "4": {"class_type": "SaveImage", "inputs": None},
        "5": {"class_type": "VAELoader", "inputs": {"vae_name": "pixel_space"}, "_meta": []},
    }
    needs = job_needs(prompt)
    assert needs.node_classes == {"CheckpointLoaderSimple", "SaveImage", "VAELoader"}
    assert [(n.name, n.title) for n in needs.models] == [("pixel_space", None)]


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_every_file_of_comfyuis_examples_is_a_need(path: Path) -> None:
    """Each value of a model loader's input, and each model-file value anywhere, is found."""
    prompt = json.loads(path.read_text("utf-8"))["prompt"]
    expected = {
        (node_id, name)
        for node_id, node in prompt.items()
        for name, value in node["inputs"].items()
        if isinstance(value, str)
        and (
            is_model_file(value)
            or any(k.class_type == node["class_type"] and k.input == name for k in KNOWN_INPUTS)
        )
    }
    assert {(n.node_id, n.input) for n in job_needs(prompt).models} == expected


values = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["a.safetensors", "b.ckpt", "c.gguf", "euler"]),
    st.integers(),
    st.tuples(st.text(max_size=3), st.integers(0, 3)).map(list),
)
prompts = st.dictionaries(
    st.text(min_size=1, max_size=3),
    st.fixed_dictionaries(
        {
            "class_type": st.sampled_from(["CheckpointLoaderSimple", "LoraLoader", "Custom"]),
            "inputs": st.dictionaries(
                st.sampled_from(["ckpt_name", "lora_name", "x"]), values, max_size=3
            ),
        }
    ),
    max_size=5,
)


@given(prompts)
def test_needs_name_only_string_values_of_the_prompt(prompt: dict[str, Any]) -> None:
    needs = job_needs(prompt)
    for need in needs.models:
        assert prompt[need.node_id]["inputs"][need.input] == need.name
        assert prompt[need.node_id]["class_type"] == need.class_type
    assert needs.node_classes == {node["class_type"] for node in prompt.values()}

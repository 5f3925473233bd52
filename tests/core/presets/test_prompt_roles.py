"""Prompt labels: the node's own title when set, else positive or negative by its wiring."""

from __future__ import annotations

import json
from pathlib import Path

from core.catalogue import Catalogue
from core.presets import list_parameters, load_preset

PAIRS = Path(__file__).parents[2] / "data" / "golden-pairs"


def prompt_titles(name: str, tmp_path: Path) -> dict[str, str]:
    editor = json.loads((PAIRS / name).read_text("utf-8"))["workflow"]
    path = tmp_path / "workflow.json"
    path.write_text(json.dumps(editor), "utf-8")
    preset = load_preset(path)
    return {str(p.ref): p.node_title for p in preset.parameters if p.multiline}


def test_untitled_prompts_are_named_by_the_sampler_input_they_reach(tmp_path: Path) -> None:
    titles = prompt_titles("2_pass_txt2img_hiresfix_esrgan_workflow.json", tmp_path)
    assert titles == {"6.text": "Positive prompt", "7.text": "Negative prompt"}


def test_a_title_set_in_the_editor_wins(tmp_path: Path) -> None:
    titles = prompt_titles("hidream_hidream_full_example.json", tmp_path)
    assert titles == {"16.text": "Positive Prompt", "40.text": "Negative Prompt"}


def test_conditioning_nodes_in_between_are_followed() -> None:
    api = {
        "1": {"class_type": "CLIPTextEncode", "inputs": {"text": "a fox", "clip": ["9", 1]}},
        "2": {"class_type": "CLIPTextEncode", "inputs": {"text": "blurry", "clip": ["9", 1]}},
        "3": {
            "class_type": "ConditioningSetArea",
            "inputs": {"conditioning": ["1", 0], "width": 64, "height": 64, "x": 0, "y": 0},
        },
        "4": {"class_type": "KSampler", "inputs": {"positive": ["3", 0], "negative": ["2", 0]}},
        "9": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "a.safetensors"}},
    }
    titles = {str(p.ref): p.node_title for p in list_parameters(api, Catalogue.bundled())}
    assert titles["1.text"] == "Positive prompt"
    assert titles["2.text"] == "Negative prompt"
    assert titles["9.ckpt_name"] == "Load Checkpoint", "only text boxes are named by their role"
    assert titles["3.width"] == "Conditioning (Set Area)"

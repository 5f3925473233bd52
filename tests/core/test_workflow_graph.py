"""Reading a workflow's graph: links, inputs, and which prompts reach a sampler's positive or
negative input."""

from __future__ import annotations

from core.catalogue import Catalogue
from core.workflow_graph import conditioning_roles, is_link, node_inputs


def _encode(text: str) -> dict:
    return {"class_type": "CLIPTextEncode", "inputs": {"text": text, "clip": ["4", 1]}}


def _sampler(positive: str, negative: str) -> dict:
    inputs = {"model": ["4", 0], "positive": [positive, 0], "negative": [negative, 0]}
    return {"class_type": "KSampler", "inputs": inputs}


def test_links_and_inputs_are_read_as_comfyui_writes_them() -> None:
    assert is_link(["4", 0])
    assert not is_link(["4", True]), "a bool is no output index"
    assert not is_link([4, 0])
    assert not is_link("4")
    assert not is_link(["4", 0, 1])
    assert node_inputs({"inputs": {"a": 1}}) == {"a": 1}
    assert node_inputs({"inputs": [1]}) == {}
    assert node_inputs(None) == {}


def test_a_prompt_is_positive_or_negative_by_where_its_conditioning_goes() -> None:
    api = {
        "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "m.safetensors"}},
        "6": _encode("a fox"),
        "7": _encode("blurry"),
        "10": {"class_type": "ConditioningZeroOut", "inputs": {"conditioning": ["7", 0]}},
        "11": _encode("both"),
        "3": _sampler("6", "10"),
        "12": _sampler("11", "11"),
    }
    roles = conditioning_roles(api, Catalogue.bundled())
    assert roles == {"6": "positive", "7": "negative", "10": "negative"}, "through node 10"
    assert "11" not in roles, "a prompt reaching both inputs is neither"

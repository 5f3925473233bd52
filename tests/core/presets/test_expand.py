"""Tests for core.presets.expand: group nodes and subgraphs made plain nodes, or refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.errors import PresetError
from core.presets import convert_editor

PRESETS = Path(__file__).parents[2] / "data" / "presets"


def test_subgraph_is_expanded() -> None:
    workflow = json.loads((PRESETS / "editor_subgraph.json").read_text("utf-8"))
    api = convert_editor(workflow).api_workflow
    assert api["7:1"] == {
        "inputs": {"text": "outer text", "clip": ["1", 1]},
        "class_type": "CLIPTextEncode",
        "_meta": {"title": "CLIP Text Encode (Prompt)"},
    }
    assert api["3"]["inputs"]["positive"] == ["7:1", 0]
    assert "7" not in api


def test_group_node_without_definition(features: dict[str, Any]) -> None:
    features["nodes"].append({"id": 77, "type": "workflow>Thing", "inputs": [], "outputs": []})
    with pytest.raises(
        PresetError, match=r"group node 77 \(workflow>Thing\).*recreate it as a subgraph"
    ):
        convert_editor(features)


def test_broken_group_definition(features: dict[str, Any]) -> None:
    features["nodes"].append({"id": 77, "type": "workflow>Thing"})
    features["extra"] = {
        "groupNodes": {"Thing": {"nodes": [{"type": "VAEDecode"}], "links": [[0]]}}
    }
    with pytest.raises(PresetError, match=r"cannot be expanded.*recreate it as a subgraph"):
        convert_editor(features)


@pytest.mark.parametrize(
    ("definition", "said"),
    [
        ({"nodes": [{"type": "VAEDecode"}], "links": [[0]]}, "past the end of its list"),
        ({"nodes": [{"type": "VAEDecode"}], "links": 5}, "a number where a list was expected"),
        ({"nodes": [5], "links": []}, "a number where an object was expected"),
        ({"links": []}, "the entry 'nodes' is missing"),
    ],
)
def test_a_broken_group_says_what_is_wrong_in_jsons_words(
    features: dict[str, Any], definition: dict[str, Any], said: str
) -> None:
    """Not Python's "('int' object has no attribute 'get')"."""
    features["nodes"].append({"id": 77, "type": "workflow>Thing"})
    features["extra"] = {"groupNodes": {"Thing": definition}}
    with pytest.raises(PresetError) as info:
        convert_editor(features)
    assert said in str(info.value)
    assert "object has no attribute" not in str(info.value)

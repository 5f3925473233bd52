"""Tests for core.presets.graph: an editor graph parsed, in both link shapes, or refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from core.errors import PresetError
from core.presets import convert_editor


def test_link_objects_and_dict_widgets_values(features: dict[str, Any]) -> None:
    objects = copy.deepcopy(features)
    keys = ("id", "origin_id", "origin_slot", "target_id", "target_slot", "type")
    objects["links"] = [dict(zip(keys, link, strict=True)) for link in features["links"]]
    assert convert_editor(objects).api_workflow == convert_editor(features).api_workflow


@pytest.mark.parametrize(
    "mutate",
    [
        lambda w: w.update(nodes="x"),
        lambda w: w["nodes"].append("not a node"),
        lambda w: w["nodes"].append({"id": 3, "type": "VAEDecode"}),
        lambda w: w["nodes"].append({"id": [1], "type": "VAEDecode"}),
        lambda w: w["links"].append([1, 2]),
        lambda w: w["links"].append("link"),
        lambda w: w["nodes"][1]["inputs"][0].update(link=[3]),
    ],
)
def test_malformed_graphs(features: dict[str, Any], mutate: Any) -> None:
    mutate(features)
    with pytest.raises(PresetError):
        convert_editor(features)

"""Tests for core.presets.editor_convert: each frontend rule on small crafted workflows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.catalogue import Catalogue
from core.errors import PresetError
from core.presets import convert_editor, editor_convert
from simulator.nodes import simulated_catalogue, simulated_object_info
from simulator.validation import Validator

PRESETS = Path(__file__).parents[2] / "data" / "presets"


def test_features_workflow(features: dict[str, Any]) -> None:
    conversion = convert_editor(features, Catalogue.bundled())
    api = conversion.api_workflow
    assert conversion.notices == ()
    # Reroute, PrimitiveNode, Note, the bypassed and the muted node are gone.
    assert sorted(api, key=int) == ["1", "2", "3", "5", "8", "61"]
    sampler = api["3"]["inputs"]
    assert sampler["seed"] == 4242  # inlined from the PrimitiveNode, control value skipped
    assert sampler["steps"] == 20
    assert sampler["negative"] == ["2", 0]  # through the bypassed ConditioningZeroOut
    assert api["2"]["inputs"]["clip"] == ["1", 1]  # through the Reroute
    assert api["2"]["_meta"] == {"title": "Positive"}
    assert api["3"]["_meta"] == {"title": "KSampler"}


def test_notice_when_no_catalogue(features: dict[str, Any]) -> None:
    assert "bundled ComfyUI 0.3.64" in convert_editor(features).notices[0]


def test_unknown_types_are_all_named(features: dict[str, Any]) -> None:
    features["nodes"][0]["type"] = "MyCustomLoader"
    features["nodes"][4]["type"] = "OtherCustom"
    with pytest.raises(PresetError) as info:
        convert_editor(features)
    text = str(info.value)
    assert "MyCustomLoader (node 1)" in text
    assert "OtherCustom (node 5)" in text


def test_socketless_frontend_nodes_are_skipped(features: dict[str, Any]) -> None:
    features["nodes"].append({"id": 99, "type": "Label (rgthree)", "widgets_values": []})
    assert "99" not in convert_editor(features).api_workflow


def test_list_values_are_wrapped(features: dict[str, Any]) -> None:
    features["nodes"][2]["widgets_values"] = [["a", "b"]]
    api = convert_editor(features).api_workflow
    assert api["2"]["inputs"]["text"] == {"__value__": ["a", "b"]}


def test_widget_converted_to_input_without_link_keeps_value(features: dict[str, Any]) -> None:
    features["links"] = [link for link in features["links"] if link[0] != 8]
    sampler = next(n for n in features["nodes"] if n["id"] == 3)
    sampler["inputs"][-1]["link"] = None
    assert convert_editor(features).api_workflow["3"]["inputs"]["seed"] == 111


def test_reroute_loop_is_an_error(features: dict[str, Any]) -> None:
    features["nodes"].append(
        {"id": 21, "type": "Reroute", "inputs": [{"name": "", "type": "*", "link": 50}]}
    )
    reroute = next(n for n in features["nodes"] if n["id"] == 20)
    reroute["inputs"][0]["link"] = 51
    features["links"] += [[50, 20, 0, 21, 0, "*"], [51, 21, 0, 20, 0, "*"]]
    with pytest.raises(PresetError, match=r"loops"):
        convert_editor(features)


def _rerouted(chain: int, consumers: int) -> dict[str, Any]:
    """An EmptyImage through `chain` reroutes into `consumers` SaveImage nodes."""
    image = {"name": "IMAGE", "type": "IMAGE", "links": []}
    nodes: list[dict[str, Any]] = [
        {"id": 1, "type": "EmptyImage", "outputs": [image], "widgets_values": [8, 8, 1, 0]}
    ]
    links: list[list[Any]] = []
    for index in range(chain):
        nodes.append({"id": 100 + index, "type": "Reroute", "inputs": [{"link": index}]})
        links.append([index, 99 + index if index else 1, 0, 100 + index, 0, "IMAGE"])
    for index in range(consumers):
        link = chain + index
        save = {"id": 10_000 + index, "type": "SaveImage", "widgets_values": ["x"]}
        save["inputs"] = [{"name": "images", "type": "IMAGE", "link": link}]
        links.append([link, 99 + chain, 0, 10_000 + index, 0, "IMAGE"])
        nodes.append(save)
    return {"nodes": nodes, "links": links}


def _hops_to_convert(workflow: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> int:
    """How many reroute hops converting ``workflow`` took (counted, not timed)."""
    hops = 0
    pass_through = editor_convert._pass_through

    def counted(*args: Any) -> str | None:
        nonlocal hops
        hops += 1
        return pass_through(*args)

    monkeypatch.setattr(editor_convert, "_pass_through", counted)
    api = convert_editor(workflow, Catalogue.bundled()).api_workflow
    monkeypatch.setattr(editor_convert, "_pass_through", pass_through)
    assert api["10000"]["inputs"]["images"] == ["1", 0]
    return hops


def test_many_inputs_behind_one_long_reroute_chain_cost_one_walk_along_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Walked once per input, 2,000 inputs behind 999 reroutes took about two million hops:
    one walk along the chain, then one hop per input onto it."""
    assert _hops_to_convert(_rerouted(1, 2000), monkeypatch) <= 1 + 2000
    assert _hops_to_convert(_rerouted(999, 2000), monkeypatch) <= 999 + 2000


def test_comfyui_default_workflow_gets_its_save_image_prefix_and_validates(
    tmp_path: Path,
) -> None:
    # The graph ComfyUI's frontend opens with: its SaveImage carries no widget values.
    workflow = json.loads((PRESETS / "editor_comfyui_default.json").read_text("utf-8"))
    catalogue = simulated_catalogue()
    api = convert_editor(workflow, catalogue).api_workflow
    assert api["9"]["inputs"] == {"filename_prefix": "ComfyUI", "images": ["8", 0]}
    assert api["3"]["inputs"]["seed"] == 156680208700286  # the boolean control is skipped
    assert api["3"]["inputs"]["denoise"] == 1
    api["4"]["inputs"]["ckpt_name"] = "v1-5-pruned-emaonly.safetensors"  # the server's file
    verdict = Validator(catalogue, simulated_object_info(), tmp_path, False).validate(api, None)
    assert (verdict.error, verdict.node_errors) == (None, {})


def test_missing_trailing_widgets_take_defaults_optional_ones_stay_out() -> None:
    workflow = json.loads((PRESETS / "editor_comfyui_default.json").read_text("utf-8"))
    sampler = next(node for node in workflow["nodes"] if node["type"] == "KSampler")
    sampler["widgets_values"] = [7, "fixed", 30]  # seed, control, steps: the rest is missing
    inputs = convert_editor(workflow).api_workflow["3"]["inputs"]
    assert (inputs["seed"], inputs["steps"], inputs["cfg"]) == (7, 30, 8.0)
    assert (inputs["sampler_name"], inputs["scheduler"], inputs["denoise"]) == (
        "euler",
        "simple",
        1.0,
    )
    loader = {
        "id": 1,
        "type": "DualCLIPLoader",
        "outputs": [{"type": "CLIP", "links": []}],
        "widgets_values": ["clip_l.safetensors", "t5xxl.safetensors", "flux"],
    }
    api = convert_editor({"nodes": [loader], "links": []}).api_workflow
    # `device` is optional: the server has its own default, as older frontends assumed.
    assert api["1"]["inputs"] == {
        "clip_name1": "clip_l.safetensors",
        "clip_name2": "t5xxl.safetensors",
        "type": "flux",
    }


def test_an_int_where_an_object_was_expected_is_said_so() -> None:
    from core.presets.checks import shape_fault

    found: Any = 5
    with pytest.raises(AttributeError) as info:
        found.get("index")
    assert shape_fault(info.value) == "a number where an object was expected"

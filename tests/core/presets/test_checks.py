"""Tests for core.presets.checks and the bounds on expansion: values and shapes refused at load."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from core.errors import InputError, PresetError
from core.presets import load_preset, preset_from_api
from core.presets.checks import check_name, check_workflow, find_cycle
from core.presets.expand import MAX_NODES
from tests.core.helpers import NOISE_WORKFLOW

PRESETS = Path(__file__).parents[2] / "data" / "presets"


def _noise() -> dict[str, Any]:
    return copy.deepcopy(NOISE_WORKFLOW)


def _chain(length: int, *, closed: bool) -> dict[str, Any]:
    """Nodes 0..length-1, each fed by the one before; the first fed by the last when closed."""
    api: dict[str, Any] = {}
    for index in range(length):
        source = str(index - 1) if index else (str(length - 1) if closed else None)
        inputs = {"image": [source, 0]} if source is not None else {}
        api[str(index)] = {"class_type": "ImageInvert", "inputs": inputs}
    return api


def test_the_noise_workflow_passes() -> None:
    check_workflow(NOISE_WORKFLOW)
    assert find_cycle(NOISE_WORKFLOW) == []


def test_a_diamond_is_not_a_cycle() -> None:
    api = _chain(2, closed=False)
    api["2"] = {"class_type": "ImageBlend", "inputs": {"image1": ["0", 0], "image2": ["1", 0]}}
    assert find_cycle(api) == []


def test_a_node_fed_by_itself_is_a_cycle() -> None:
    api = _noise()
    api["2"]["inputs"]["image"] = ["2", 0]
    with pytest.raises(PresetError) as caught:
        check_workflow(api)
    assert str(caught.value) == "links form a cycle: node 2 (ImageAddNoise) -> node 2"


def test_a_long_cycle_is_found_without_recursion_and_shown_short() -> None:
    api = _chain(20_000, closed=True)
    cycle = find_cycle(api)
    assert len(cycle) == 20_000
    assert cycle[:3] == ["0", "1", "2"]  # in data-flow order: each feeds the next
    with pytest.raises(PresetError, match=r"-> \.\.\. \(20000 nodes in all\)$"):
        check_workflow(api)


def test_a_long_chain_without_cycle_passes() -> None:
    assert find_cycle(_chain(20_000, closed=False)) == []


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda api: api["1"]["inputs"].update(color={"__value__": [1, float("-inf")]}),
            "node 1 (EmptyImage), input 'color': -inf is not a finite number",
        ),
        (
            lambda api: api["3"].update(_meta={"title": "x\udfff"}),
            "node 3 (SaveImage), field '_meta': the text holds a lone surrogate (\\udfff at",
        ),
        (
            lambda api: api["3"]["inputs"].update({"pre\ud800": "x"}),
            "node 3 (SaveImage), input 'pre\\ud800': the text holds a lone surrogate",
        ),
        (
            lambda api: api.update({"\ud801": api.pop("3")}),
            "node \\ud801 (SaveImage): its id holds a lone surrogate (\\ud801 at character 0)",
        ),
    ],
)
def test_values_refused_name_the_node_and_input(change: Any, message: str) -> None:
    api = _noise()
    change(api)
    with pytest.raises(PresetError) as caught:
        preset_from_api(api, Path("x.json"))
    assert str(caught.value).startswith(message)


def test_a_nan_widget_of_an_editor_workflow_is_refused(tmp_path: Path) -> None:
    workflow = json.loads((PRESETS / "editor_subgraph.json").read_text())
    sampler = next(n for n in workflow["nodes"] if n["type"] == "KSampler")
    sampler["widgets_values"][3] = float("nan")  # cfg
    path = tmp_path / "nan_cfg.json"
    path.write_text(json.dumps(workflow))
    with pytest.raises(PresetError, match=r"^nan_cfg.json: node 3 \(KSampler\), input 'cfg': nan"):
        load_preset(path)


def test_group_nodes_that_multiply_past_the_bound_are_refused(tmp_path: Path) -> None:
    inner = [{"type": "ImageInvert", "inputs": [], "outputs": [], "widgets_values": []}] * 200
    count = MAX_NODES // 200 + 1
    workflow = {
        "nodes": [
            {"id": i, "type": "workflow>Many", "inputs": [], "outputs": [], "widgets_values": []}
            for i in range(count)
        ],
        "links": [],
        "extra": {"groupNodes": {"Many": {"nodes": inner, "links": []}}},
    }
    path = tmp_path / "many_groups.json"
    path.write_text(json.dumps(workflow))
    with pytest.raises(PresetError, match=r"^many_groups.json: .* more than 10,000 nodes"):
        load_preset(path)


def test_a_name_must_be_valid_unicode() -> None:
    check_name("café")
    with pytest.raises(InputError, match=r"'a\\udcffb' is not valid UTF-8 text"):
        check_name("a\udcffb")

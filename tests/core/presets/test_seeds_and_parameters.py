"""Tests for seed detection (by name, by flag, through links) and parameter listing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.catalogue import Catalogue
from core.errors import PresetError
from core.presets import (
    InputRef,
    detect_seed_inputs,
    explicit_seed_inputs,
    list_parameters,
    load_preset,
)

PRESETS = Path(__file__).parents[2] / "data" / "presets"
CAT = Catalogue.bundled()


@pytest.fixture
def api() -> dict[str, Any]:
    return json.loads((PRESETS / "api_primitive_seed.json").read_text("utf-8"))


def test_seed_fed_by_a_link_is_followed(api: dict[str, Any]) -> None:
    seeds = detect_seed_inputs(api, CAT)
    assert [str(s.ref) for s in seeds] == ["10.value", "11.seed"]
    primitive = seeds[0]
    assert (primitive.minimum, primitive.maximum) == (0, 2**63 - 1)
    assert seeds[1].maximum == 0xFFFFFFFFFFFFFFFF


def test_noise_seed_and_unusual_names() -> None:
    api = {
        "1": {"class_type": "RandomNoise", "inputs": {"noise_seed": 5}},
        "2": {"class_type": "MyCustomSampler", "inputs": {"sampler_seed": 9, "steps": 3}},
        "3": {"class_type": "LatentBatchSeedBehavior", "inputs": {"seed_behavior": "fixed"}},
    }
    seeds = detect_seed_inputs(api, CAT)
    assert [str(s.ref) for s in seeds] == ["1.noise_seed", "2.sampler_seed"]
    assert seeds[1].maximum == 0xFFFFFFFF  # unknown to the catalogue: a smaller range


def test_explicit_list_replaces_detection(api: dict[str, Any]) -> None:
    seeds = explicit_seed_inputs(api, CAT, ["3.seed", InputRef("5", "width")])
    assert [str(s.ref) for s in seeds] == ["10.value", "5.width"]
    assert seeds[1].minimum == 16


@pytest.mark.parametrize(
    ("ref", "message"),
    [("nodot", "NODE_ID.INPUT"), ("3.text", "no such"), ("6.text", "not an integer")],
)
def test_explicit_errors(api: dict[str, Any], ref: str, message: str) -> None:
    with pytest.raises(PresetError, match=message):
        explicit_seed_inputs(api, CAT, [ref])


def test_seed_link_to_nothing_useful(api: dict[str, Any]) -> None:
    api["3"]["inputs"]["seed"] = ["4", 0]  # a checkpoint loader provides no integer
    assert [str(s.ref) for s in detect_seed_inputs(api, CAT)] == ["11.seed"]


def test_parameters_from_catalogue(api: dict[str, Any]) -> None:
    params = {str(p.ref): p for p in list_parameters(api, CAT, [InputRef("10", "value")])}
    assert "3.model" not in params
    steps = params["3.steps"]
    assert (steps.type, steps.minimum, steps.maximum, steps.value) == ("INT", 1, 10000, 20)
    assert "euler" in params["3.sampler_name"].choices
    assert params["6.text"].node_title == "Positive"
    assert params["7.text"].node_title == "Negative prompt", "untitled: named by its wiring"
    assert params["5.width"].step == 8
    assert params["10.value"].is_seed
    order = list(params)
    assert order[:2] == ["6.text", "7.text"], "prompt texts first"
    assert order[2].startswith("3."), "then numeric node order"
    assert params["6.text"].multiline
    assert not params["3.steps"].multiline


def test_parameters_of_unknown_nodes() -> None:
    api = {
        "1": {"class_type": "Custom", "inputs": {"a": True, "b": 2, "c": 1.5, "d": "x", "e": None}}
    }
    types = [p.type for p in list_parameters(api, CAT)]
    assert types == ["BOOLEAN", "INT", "FLOAT", "STRING", "*"]


def test_preset_records_seeds_and_parameters() -> None:
    preset = load_preset(PRESETS / "api_primitive_seed.json")
    assert [str(s.ref) for s in preset.seed_inputs] == ["10.value", "11.seed"]
    assert any(p.is_seed for p in preset.parameters)


def test_input_ref_parse() -> None:
    assert InputRef.parse(" 68:5.seed ") == InputRef("68:5", "seed")
    assert str(InputRef("3", "seed")) == "3.seed"
    with pytest.raises(ValueError, match=r"NODE_ID.INPUT"):
        InputRef.parse("3.")

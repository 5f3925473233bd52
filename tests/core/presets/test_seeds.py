"""Tests for core.presets.seeds: seed inputs found by name, by flag and through links, or listed."""

from __future__ import annotations

from typing import Any

import pytest

from core.catalogue import Catalogue
from core.errors import PresetError
from core.presets import (
    InputRef,
    detect_seed_inputs,
    explicit_seed_inputs,
)

CAT = Catalogue.bundled()


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

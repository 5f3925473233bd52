"""Tests for core.presets.parameters: the editable literal inputs of a workflow, titled, typed."""

from __future__ import annotations

from typing import Any

from core.catalogue import Catalogue
from core.presets import (
    InputRef,
    list_parameters,
)

CAT = Catalogue.bundled()


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

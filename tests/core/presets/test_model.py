"""Tests for core.presets.model: the Preset record and its input references."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.presets import (
    InputRef,
    load_preset,
)

PRESETS = Path(__file__).parents[2] / "data" / "presets"


def test_preset_records_seeds_and_parameters() -> None:
    preset = load_preset(PRESETS / "api_primitive_seed.json")
    assert [str(s.ref) for s in preset.seed_inputs] == ["10.value", "11.seed"]
    assert any(p.is_seed for p in preset.parameters)


def test_input_ref_parse() -> None:
    assert InputRef.parse(" 68:5.seed ") == InputRef("68:5", "seed")
    assert str(InputRef("3", "seed")) == "3.seed"
    with pytest.raises(ValueError, match=r"NODE_ID.INPUT"):
        InputRef.parse("3.")

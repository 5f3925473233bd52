"""Fixtures shared by this folder's test files."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.presets import Preset, load_preset

PRESETS = Path(__file__).parents[2] / "data" / "presets"


@pytest.fixture(scope="module")
def preset() -> Preset:
    return load_preset(PRESETS / "api_primitive_seed.json")


@pytest.fixture(scope="module")
def one_seed() -> Preset:
    return load_preset(PRESETS / "api_primitive_seed.json", seed_inputs=["3.seed"])

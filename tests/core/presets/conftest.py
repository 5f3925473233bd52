"""Fixtures shared by this folder's test files: the workflows several modules' tests read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

PRESETS = Path(__file__).parents[2] / "data" / "presets"


@pytest.fixture
def api() -> dict[str, Any]:
    return json.loads((PRESETS / "api_primitive_seed.json").read_text("utf-8"))


@pytest.fixture
def features() -> dict[str, Any]:
    return json.loads((PRESETS / "editor_features.json").read_text("utf-8"))

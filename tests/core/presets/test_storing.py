"""Tests for core.presets.storing: a preset stored under a name, renamed, copied, removed, with
what the composer keeps for it following, in a real ledger."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import InputError
from core.ledger import Ledger
from core.presets import load_preset
from core.presets.composer_state import load_composer_state, save_composer_state
from core.presets.storing import (
    duplicate_preset,
    free_name,
    preset_summary,
    remove_preset,
    rename_preset,
    store_preset,
)

PRESETS = Path(__file__).parents[2] / "data" / "presets"


def test_a_free_name_counts_up_past_the_taken_ones_whatever_their_case() -> None:
    assert free_name([], "fox") == "fox"
    assert free_name(["Fox", "fox (2)"], "fox") == "fox (3)"


def test_the_same_workflow_stored_twice_names_the_other_name(ledger: Ledger) -> None:
    preset = load_preset(PRESETS / "api_primitive_seed.json")
    assert store_preset(ledger, "fox", preset).also_named is None
    assert store_preset(ledger, "fox again", preset).also_named == "fox"
    with pytest.raises(InputError):
        store_preset(ledger, "", preset, hint="choose another name")
    summary = preset_summary(ledger.presets.get("fox"))
    assert (summary["name"], summary["nodes"]) == ("fox", len(preset.api_workflow))


def test_the_composer_state_follows_a_rename_a_copy_and_a_removal(ledger: Ledger) -> None:
    store_preset(ledger, "fox", load_preset(PRESETS / "api_primitive_seed.json"))
    save_composer_state(ledger, "fox", {"count": 4})
    rename_preset(ledger, "fox", "vixen")
    assert load_composer_state(ledger, "fox") is None
    assert load_composer_state(ledger, "vixen") == {"count": 4}
    copy = duplicate_preset(ledger, "vixen")
    assert copy == "vixen copy"
    assert load_composer_state(ledger, copy) == {"count": 4}
    remove_preset(ledger, "vixen")
    assert load_composer_state(ledger, "vixen") is None
    assert "vixen" not in ledger.presets.names()
    assert copy in ledger.presets.names()

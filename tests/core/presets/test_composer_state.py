"""Tests for core.presets.composer_state: what the composer keeps per preset, and whether it
holds values the preset's own workflow does not (the "edited" mark), in a real ledger."""

from __future__ import annotations

from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from core.presets.composer_state import (
    forget_composer_state,
    has_unsaved_values,
    load_composer_state,
    save_composer_state,
)

WORKFLOW = {
    "3": {"class_type": "KSampler", "inputs": {"steps": 20, "seed": 1, "model": ["4", 0]}},
    "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "a.safetensors"}},
}


def test_only_values_other_than_the_presets_own_mark_it_edited(ledger: Ledger) -> None:
    ledger.presets.add("fox", PresetContent(workflow_hash(WORKFLOW), WORKFLOW))
    assert not has_unsaved_values(ledger, "fox"), "nothing kept"
    save_composer_state(ledger, "fox", {"seeds": {"count": 7}, "values": {}})
    assert not has_unsaved_values(ledger, "fox"), "seeds are not the preset's values"
    save_composer_state(ledger, "fox", {"values": {"3.steps": 20}})
    assert not has_unsaved_values(ledger, "fox"), "its own value"
    save_composer_state(ledger, "fox", {"values": {"3.steps": 30}})
    assert has_unsaved_values(ledger, "fox")
    save_composer_state(ledger, "fox", {"values": {"9.text": "gone"}})
    assert has_unsaved_values(ledger, "fox"), "a node it lacks: still a change kept"
    forget_composer_state(ledger, "fox")
    assert load_composer_state(ledger, "fox") is None
    assert not has_unsaved_values(ledger, "fox")


def test_a_preset_gone_is_not_edited(ledger: Ledger) -> None:
    save_composer_state(ledger, "gone", {"values": {"3.steps": 30}})
    assert not has_unsaved_values(ledger, "gone")

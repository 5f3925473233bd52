"""Tests for desktop.app.demo: the presets made in the demo, copied to the real ledger."""

from __future__ import annotations

import copy
from pathlib import Path

from core.ledger import Ledger, PresetContent
from core.presets import workflow_hash
from core.presets.composer_state import load_composer_state, save_composer_state
from desktop.app.demo import copy_presets, demo_ledger, made_in_demo


def add_variant(ledger: Ledger, name: str, width: int) -> dict:
    sample = ledger.presets.get("Portrait txt2img (SD 1.5)").api_workflow
    variant = copy.deepcopy(sample)
    variant["5"]["inputs"]["width"] = width
    ledger.presets.add(name, PresetContent(workflow_hash(variant), variant))
    return variant


def test_only_presets_made_in_the_demo_and_new_to_the_real_ledger_are_offered(
    tmp_path: Path,
) -> None:
    with demo_ledger(tmp_path) as demo, Ledger(tmp_path / "real") as real:
        add_variant(demo, "wide fox", 768)
        known = add_variant(demo, "Already there", 640)
        real.presets.add("kept", PresetContent(workflow_hash(known), known))
        assert made_in_demo(demo, real) == ["wide fox"]  # the samples are not offered


def test_copies_keep_content_and_composer_state_and_never_replace(tmp_path: Path) -> None:
    with demo_ledger(tmp_path) as demo, Ledger(tmp_path / "real") as real:
        variant = add_variant(demo, "fox", 768)
        save_composer_state(demo, "fox", {"values": {"5.height": 640}})
        other = add_variant(demo, "other", 320)
        real.presets.add("Fox", PresetContent(workflow_hash(other), other))
        assert copy_presets(demo, real, ["fox"]) == ["fox (2)"]
        assert real.presets.get("fox (2)").api_workflow == variant
        assert real.presets.get("Fox").api_workflow == other
        assert load_composer_state(real, "fox (2)") == {"values": {"5.height": 640}}

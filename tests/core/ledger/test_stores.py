"""Presets by name and hash, settings shared by GUI and CLI, requests between processes."""

from __future__ import annotations

import pytest

from core.errors import InputError, UnknownRecord
from core.ledger import Ledger, NewJob, PresetContent, PresetOutcome
from tests.core.ledger.conftest import WORKFLOW, make_jobs

OTHER = {"1": {"class_type": "EmptyImage", "inputs": {"width": 8}}}


def test_adding_identical_content_again_is_a_no_op(ledger: Ledger) -> None:
    before = ledger.presets.get("demo")
    outcome = ledger.presets.add("demo", PresetContent("hash-demo", WORKFLOW))
    assert outcome == PresetOutcome.unchanged
    assert ledger.presets.get("demo") == before


def test_a_taken_name_is_refused_without_replace(ledger: Ledger) -> None:
    with pytest.raises(InputError, match="--replace"):
        ledger.presets.add("demo", PresetContent("hash-other", OTHER))
    assert ledger.presets.get("demo").api_workflow == WORKFLOW


def test_replace_swaps_the_workflow_and_keeps_old_batches_rebuildable(ledger: Ledger) -> None:
    make_jobs(ledger, 1)
    outcome = ledger.presets.add("demo", PresetContent("hash-other", OTHER), replace=True)
    assert outcome == PresetOutcome.replaced
    assert ledger.presets.get("demo").api_workflow == OTHER
    batch = ledger.batches()[0]
    assert ledger.workflow(batch.workflow_hash) == WORKFLOW


def test_a_workflow_is_stored_once_by_hash(ledger: Ledger) -> None:
    ledger.presets.add("copy", PresetContent("hash-demo", WORKFLOW, source="b.json"))
    assert {p.name for p in ledger.presets.all()} == {"copy", "demo"}
    assert ledger.presets.get("copy").workflow_hash == ledger.presets.get("demo").workflow_hash


def test_remove_forgets_the_preset(ledger: Ledger) -> None:
    ledger.presets.remove("demo")
    assert ledger.presets.names() == []
    with pytest.raises(UnknownRecord, match="no preset named 'demo'"):
        ledger.presets.get("demo")


def test_an_empty_name_is_refused(ledger: Ledger) -> None:
    with pytest.raises(InputError, match="non-empty name"):
        ledger.presets.add("  ", PresetContent("h", WORKFLOW))


def test_settings_round_trip_json_values(ledger: Ledger) -> None:
    assert ledger.settings.get("caps.global", 3) == 3
    ledger.settings.set("caps.global", 5)
    ledger.settings.set("server", {"url": "http://127.0.0.1:8188"})
    with Ledger(ledger.folder) as other:
        assert other.settings.get("caps.global") == 5
        assert other.settings.all()["server"] == {"url": "http://127.0.0.1:8188"}


def test_unknown_records_are_named(ledger: Ledger) -> None:
    with pytest.raises(UnknownRecord, match="no job 'job_x'"):
        ledger.job("job_x")
    with pytest.raises(UnknownRecord, match="no batch 'b'"):
        ledger.batch("b")
    with pytest.raises(UnknownRecord, match="no preset named 'nope'"):
        ledger.create_batch("nope", [], requester="a")


def test_presets_sort_whatever_their_case(ledger: Ledger) -> None:
    for name in ("beta", "Alpha", "Delta"):
        ledger.presets.add(name, PresetContent("hash-demo", WORKFLOW))
    assert ledger.presets.names() == ["Alpha", "beta", "Delta", "demo"]
    assert [p.name for p in ledger.presets.all()] == ledger.presets.names()


def test_rename_keeps_the_content_and_refuses_a_taken_name(ledger: Ledger) -> None:
    make_jobs(ledger, 1)
    ledger.presets.add("other", PresetContent("hash-other", OTHER))
    with pytest.raises(InputError, match=r"^a preset named 'other' already exists$"):
        ledger.presets.rename("demo", "other")
    ledger.presets.rename("demo", "Demo")
    assert ledger.presets.names() == ["Demo", "other"]
    assert ledger.presets.get("Demo").api_workflow == WORKFLOW
    assert ledger.batches()[0].preset == "demo"  # batches keep the name they were made with
    with pytest.raises(UnknownRecord):
        ledger.presets.rename("demo", "again")
    with pytest.raises(InputError):
        ledger.presets.rename("Demo", " ")


def test_a_batch_is_named_when_made_or_later(ledger: Ledger) -> None:
    batch, _ = ledger.create_batch("demo", [NewJob({})], requester="a", name=" Fox study ")
    assert ledger.batch(batch.id).name == "Fox study"
    assert ledger.name_batch(batch.id, "").name is None
    with pytest.raises(InputError, match="at most 200 characters"):
        ledger.name_batch(batch.id, "x" * 201)
    with pytest.raises(UnknownRecord):
        ledger.name_batch("batch_20990101_0001", "nope")

"""A preset's versions: replacing keeps the old content, restoring brings it back as a new
version, a requester never changes another owner's preset, and an older ledger's presets
become version 1."""

from __future__ import annotations

import sqlite3

import pytest

from core.errors import NotYours, UnknownRecord
from core.ledger import Ledger, PresetContent, PresetOutcome
from core.paths import ledger_path
from tests.core.ledger.conftest import WORKFLOW

OTHER = {"1": {"class_type": "EmptyImage", "inputs": {"width": 8}}}
EDITOR = {"nodes": [{"id": 1}], "links": []}


def test_replacing_keeps_the_old_content_as_a_version(ledger: Ledger) -> None:
    content = PresetContent("hash-other", OTHER, EDITOR, origin="http://127.0.0.1:8188")
    assert ledger.presets.add("demo", content, replace=True) is PresetOutcome.replaced
    versions = ledger.presets.versions("demo")
    assert [(v.number, v.workflow_hash) for v in versions] == [(1, "hash-demo"), (2, "hash-other")]
    assert versions[1].editor_workflow == EDITOR
    assert versions[1].origin == "http://127.0.0.1:8188"
    assert versions[1].stored_by.local
    assert ledger.presets.add("demo", content, replace=True) is PresetOutcome.unchanged
    assert ledger.presets.version("demo") == 2


def test_restoring_makes_an_old_version_current_as_a_new_one(ledger: Ledger) -> None:
    ledger.presets.add("demo", PresetContent("hash-other", OTHER), replace=True)
    assert ledger.presets.restore("demo", 1) == (PresetOutcome.replaced, 3)
    assert ledger.presets.get("demo").api_workflow == WORKFLOW
    assert [v.workflow_hash for v in ledger.presets.versions("demo")] == [
        "hash-demo",
        "hash-other",
        "hash-demo",
    ]
    assert ledger.presets.restore("demo", 3) == (PresetOutcome.unchanged, 3)
    with pytest.raises(UnknownRecord, match="no version 9"):
        ledger.presets.restore("demo", 9)


def test_a_requester_gets_a_free_name_rather_than_anothers_preset(ledger: Ledger) -> None:
    alice, bob = ledger.presets_for("alice"), ledger.presets_for("bob")
    placed = alice.add_own("demo", PresetContent("hash-other", OTHER))
    assert (placed.name, placed.outcome, placed.version) == ("demo (2)", PresetOutcome.created, 1)
    assert ledger.presets.get("demo").api_workflow == WORKFLOW  # the artist's, untouched
    again = alice.add_own("demo", PresetContent("hash-demo", WORKFLOW))
    assert (again.name, again.outcome, again.version) == ("demo (2)", PresetOutcome.replaced, 2)
    theirs = bob.add_own("demo", PresetContent("hash-other", OTHER))
    assert theirs.name == "demo (3)"  # alice's "demo (2)" is not bob's either
    with pytest.raises(UnknownRecord):  # another requester's: not even seen
        bob.restore("demo (2)", 1)
    with pytest.raises(NotYours):
        alice.restore("demo", 1)


def test_removing_a_preset_removes_its_versions(ledger: Ledger) -> None:
    ledger.presets.add("demo", PresetContent("hash-other", OTHER), replace=True)
    ledger.presets.remove("demo")
    ledger.presets.add("demo", PresetContent("hash-other", OTHER))
    assert [v.number for v in ledger.presets.versions("demo")] == [1]


def test_an_older_ledgers_presets_become_version_one(ledger: Ledger) -> None:
    path = ledger_path(ledger.folder)
    ledger.close()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE preset_version")
        conn.execute("PRAGMA user_version = 13")
    conn.close()
    with Ledger(ledger.folder) as reopened:
        versions = reopened.presets.versions("demo")
        assert [(v.number, v.workflow_hash) for v in versions] == [(1, "hash-demo")]

"""The one rule of names (a preset's, a batch's, a requester's), checked where each is written."""

from __future__ import annotations

import re

import pytest

from core.batch import BatchSpec, SeedPlan, queue_batch
from core.errors import InputError
from core.ledger import Ledger, NewJob, PresetContent
from core.names import MAX_NAME, checked_name
from core.presets import workflow_hash
from tests.core.helpers import NOISE_WORKFLOW

BROKEN = [
    ("", "needs a non-empty name"),
    ("   ", "needs a non-empty name"),
    (".", "cannot be called '.'"),
    ("..", "cannot be called '..'"),
    ("a/b", "cannot hold a path separator (U+002F)"),
    ("a\\b", "cannot hold a path separator (U+005C)"),
    ("a\x00b", "cannot hold a control character (U+0000)"),
    ("a\nb", "cannot hold a control character (U+000A)"),
    ("a\u2028b", "cannot hold a control character (U+2028)"),
    ("a\ud800b", "cannot hold a control character (U+D800)"),
    ("a\u202eb", "cannot hold a bidirectional control (U+202E)"),
    ("a\u2067b", "cannot hold a bidirectional control (U+2067)"),
    ("a\u200fb", "cannot hold a bidirectional control (U+200F)"),
    ("x" * (MAX_NAME + 1), f"name has at most {MAX_NAME} characters, not {MAX_NAME + 1}"),
]


@pytest.mark.parametrize(("name", "rule"), BROKEN)
def test_a_name_breaking_a_rule_is_one_line_naming_it(name: str, rule: str) -> None:
    with pytest.raises(InputError) as refused:
        checked_name(name, "a batch")
    assert rule in str(refused.value)
    assert str(refused.value).startswith("a batch ")
    assert len(str(refused.value).splitlines()) == 1


@pytest.mark.parametrize(
    "name", ["portrait", "Porträt v2", "夜の街", "fox 🦊", "a.b", "...x", "x" * MAX_NAME, "حصان"]
)
def test_ordinary_names_in_any_script_pass(name: str) -> None:
    assert checked_name(name, "a preset") == name


def refused(what: str, rule: str) -> pytest.RaisesExc[InputError]:
    return pytest.raises(InputError, match=rf"^{re.escape(what)} .*{re.escape(rule)}")


@pytest.mark.parametrize(("name", "rule"), BROKEN[2:])
def test_every_name_is_checked_where_it_is_written(ledger: Ledger, name: str, rule: str) -> None:
    content = PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW)
    with refused("a preset", rule):
        ledger.presets.add(name, content)
    with refused("a preset", rule):
        ledger.presets.rename("noise", name)
    with refused("a batch", rule):
        queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=1)), name=name)
    batch, _ = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=1)))
    with refused("a batch", rule):
        ledger.name_batch(batch.id, name)
    with refused("a requester", rule):
        ledger.create_batch("noise", [NewJob({})], requester=name)
    with refused("a requester", rule):
        ledger.create_batch("noise", [NewJob({}, requester=name)], requester="alice")
    assert [preset.name for preset in ledger.presets.all()] == ["noise"]
    assert len(ledger.batches()) == 1

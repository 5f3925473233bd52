"""A batch of jobs in a real ledger, for the tests of marks (tests/core/ledger/test_marks.py) and
of the marked pictures (tests/core/pictures/test_picks.py)."""

from __future__ import annotations

from core.ledger import Ledger, NewJob, PresetContent

WORKFLOW = {"1": {"class_type": "EmptyImage", "inputs": {}}}


def jobs(ledger: Ledger, count: int) -> tuple[str, list[str]]:
    ledger.presets.add("p", PresetContent("h", WORKFLOW))
    new = [NewJob({"1.color": n}) for n in range(count)]
    batch, ids = ledger.create_batch("p", new, requester="artist")
    return batch.id, ids

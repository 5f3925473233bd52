"""Ledger fixtures: a real SQLite ledger in a temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.ledger import Ledger, NewJob, PresetContent

WORKFLOW = {
    "1": {
        "class_type": "EmptyImage",
        "inputs": {"width": 64, "height": 64, "batch_size": 1, "color": 0},
    },
    "2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "t"}},
}


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path / "home") as opened:
        opened.presets.add("demo", PresetContent("hash-demo", WORKFLOW))
        yield opened


def make_jobs(ledger: Ledger, count: int, requester: str = "alice") -> list[str]:
    """Create a batch of ``count`` pending jobs of the demo preset; returns their ids."""
    jobs = [NewJob({"1.color": i}) for i in range(count)]
    return ledger.create_batch("demo", jobs, requester=requester)[1]

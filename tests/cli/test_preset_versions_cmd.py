"""`batchline preset versions|restore`: a replaced preset's old content listed and brought back."""

from __future__ import annotations

import json
from pathlib import Path

from core.ledger import Ledger
from tests.cli.conftest import Cli
from tests.core.helpers import NOISE_WORKFLOW


def test_a_replaced_preset_lists_its_versions_and_restores_one(
    cli: Cli, home: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "fox.json", tmp_path / "fox2.json"
    first.write_text(json.dumps(NOISE_WORKFLOW))
    other = {**NOISE_WORKFLOW, "99": {"class_type": "EmptyImage", "inputs": {"width": 8}}}
    second.write_text(json.dumps(other))
    assert cli("preset", "add", str(first), "--name", "Fox").code == 0
    assert cli("preset", "add", str(second), "--name", "Fox", "--replace").code == 0
    listed = cli("preset", "versions", "Fox")
    assert [line.split("\t")[0] for line in listed.out.splitlines()] == ["1", "2"]
    assert listed.out.splitlines()[1].endswith("(current)")
    restored = cli("preset", "restore", "Fox", "1")
    assert restored.out == "restored: version 1 of 'Fox' is current, as version 3\n"
    with Ledger(home) as ledger:
        assert ledger.presets.get("Fox").api_workflow == NOISE_WORKFLOW
    assert [v["version"] for v in cli("preset", "versions", "Fox", "--json").json()] == [1, 2, 3]
    missing = cli("preset", "restore", "Fox", "7")
    assert (missing.code, missing.err) == (
        2,
        "batchline: preset 'Fox' has no version 7 (it has 1 to 3)\n",
    )

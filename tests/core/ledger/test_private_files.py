"""The data folder and the ledger's files are readable by their owner only."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from core.ledger import Ledger
from core.paths import ledger_path

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_ledger_and_its_folder_are_the_owners_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Ledger(home) as ledger:
        ledger.settings.set("output_dir", "/somewhere")  # the WAL and shared memory exist now
        path = ledger_path(home)
        beside = [path.with_name(path.name + suffix) for suffix in ("-wal", "-shm")]
        assert mode(home) == 0o700
        assert [mode(file) for file in (path, *beside)] == [0o600] * 3
    lock = path.name + ".controller.lock"  # made with it: it outlives a deleted ledger
    assert sorted(p.name for p in home.iterdir()) == [path.name, lock], "nothing else left"
    assert mode(home / lock) == 0o600


def test_a_ledger_others_could_read_becomes_the_owners_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    Ledger(home).close()
    ledger_path(home).chmod(0o644)  # as an older Batchline left it
    with Ledger(home):
        assert mode(ledger_path(home)) == 0o600

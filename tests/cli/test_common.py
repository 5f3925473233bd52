"""A missing ledger is refused, never silently replaced by an empty one; only a first start
(a folder that never held one) or `batchline init` makes one, and says so in one line. An empty
--data-dir or $BATCHLINE_HOME is refused rather than taken to mean the real data folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main
from core.ledger import Ledger
from core.paths import HOME_ENV
from tests.cli.conftest import Cli


def test_jobs_refuses_a_ledger_deleted_from_its_folder(cli: Cli, home: Path, noise: str) -> None:
    (home / "ledger.sqlite3").unlink()
    result = cli("jobs")
    assert (result.code, result.out) == (1, "")
    assert result.err == (
        f"batchline: there is no ledger at {home / 'ledger.sqlite3'} (deleted or moved away?): "
        "none is made in its place; restore it, or start a new one with `batchline init`\n"
    )
    assert not (home / "ledger.sqlite3").exists()


def test_init_starts_a_new_ledger_where_one_was_deleted(cli: Cli, home: Path, noise: str) -> None:
    (home / "ledger.sqlite3").unlink()
    made = cli("init")
    assert made.code == 0
    assert made.err == f"batchline: a new, empty ledger was made at {home / 'ledger.sqlite3'}\n"
    assert cli("jobs").code == 0
    kept = cli("init")
    assert (kept.code, kept.err) == (0, "")
    assert kept.out == f"the ledger at {home / 'ledger.sqlite3'} is kept: it exists already\n"


def test_a_first_start_makes_the_ledger_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "new"
    assert main(["--data-dir", str(folder), "jobs"]) == 0
    assert capsys.readouterr().err == (
        f"batchline: a new, empty ledger was made at {folder / 'ledger.sqlite3'}\n"
    )
    assert main(["--data-dir", str(folder), "jobs"]) == 0
    assert capsys.readouterr().err == "", "said once: the second command finds it"
    with Ledger.open_existing(folder) as ledger:
        assert not ledger.created


def test_an_empty_data_dir_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "elsewhere"))
    assert main(["--data-dir", "", "jobs"]) == 2
    assert capsys.readouterr().err == (
        "batchline: --data-dir is empty: name the data folder (or leave it out)\n"
    )
    monkeypatch.setenv(HOME_ENV, "")
    assert main(["jobs"]) == 2
    assert capsys.readouterr().err == (
        f"batchline: ${HOME_ENV} is empty: name the data folder (or leave it out)\n"
    )
    assert list(tmp_path.iterdir()) == [], "no folder made anywhere"

"""A missing ledger is refused, never silently replaced by an empty one; only a first start
(a folder that never held one) or `batchline init` makes one, and says so in one line. An empty
--data-dir or $BATCHLINE_HOME is refused rather than taken to mean the real data folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main
from core.comfy import server_address
from core.ledger import Ledger
from core.paths import HOME_ENV, ledger_path
from tests.cli.conftest import Cli, one_line


def test_an_empty_ledger_is_refused_never_replaced(cli: Cli, tmp_path: Path) -> None:
    cli.home = home = tmp_path / "fresh"
    home.mkdir()
    ledger_path(home).write_bytes(b"")  # truncated: its jobs are gone, but not silently
    for args in (["jobs"], ["queue", "noise"], ["run", "--until-idle"]):
        line = one_line(cli(*args))
        assert line.startswith(f"batchline: {ledger_path(home)}: the ledger is empty (0 bytes")
        assert ledger_path(home).stat().st_size == 0


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


@pytest.mark.parametrize("command", [["run", "--until-idle"], ["servers"], ["queue", "noise"]])
def test_credentials_in_a_server_address_are_refused(
    cli: Cli, noise: str, command: list[str]
) -> None:
    (job_id,) = cli("queue", "noise").out.split()
    cli.server = "http://artist:hunter2@127.0.0.1:9"
    result = cli(*command)
    assert (result.code, result.err.strip().splitlines()) == (
        2,
        [
            "batchline: no user name or password in a server address (http://127.0.0.1:9): "
            "a token goes in the app's Settings (kept in the keyring) or in $BATCHLINE_TOKEN"
        ],
    )
    assert "hunter2" not in result.out + result.err
    assert [(job["id"], job["attempts"]) for job in cli("jobs", "--json").json()] == [(job_id, [])]


def test_a_user_name_alone_is_refused_too() -> None:
    with pytest.raises(ValueError, match="no user name or password"):
        server_address("https://artist@render-box/comfy")


@pytest.mark.parametrize("server", ["  ", ",", "", " , "])
def test_a_server_option_naming_no_server_is_refused(cli: Cli, server: str) -> None:
    cli.server = server
    result = cli("run", "--until-idle")
    assert (result.code, result.err) == (2, f"batchline: --server names no server: {server!r}\n")


@pytest.mark.parametrize("port", ["99999", "0", "-1"])
def test_a_port_out_of_range_is_refused(cli: Cli, port: str) -> None:
    cli.server = f"http://127.0.0.1:{port}"
    for command in (["run", "--until-idle"], ["servers"]):
        result = cli(*command)
        assert (result.code, result.err) == (
            2,
            f"batchline: port {port} is not 1-65535 in server address 'http://127.0.0.1:{port}'\n",
        )

"""The disk and the data folder: a full output folder, a data folder or ledger that cannot be
used, a damaged ledger, and who may read the ledger: one line each, the ledger untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.cli import run_cmd
from core.ledger import Ledger
from core.simulator.thread import SimulatorThread
from tests.core.cli.conftest import Cli
from tests.core.disks import fill, small_disk


def test_run_until_idle_gives_up_on_a_full_output_folder_and_the_next_run_finishes(
    cli: Cli,
    noise: str,
    home: Path,
    tmp_path: Path,
    sim_thread: SimulatorThread,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(run_cmd, "FULL_OUTPUT_PATIENCE_S", 1.0)
    with small_disk(tmp_path / "out", "256k") as out:
        with Ledger(home) as ledger:
            ledger.settings.set("output_dir", str(out))
        filler = fill(out)
        ids = cli("queue", "noise", "--count", "2").out.split()
        cli.server = sim_thread.url
        result = cli("run", "--until-idle", "--poll-interval", "0.05")
        assert result.code == 1, result.err
        assert "Traceback" not in result.err
        assert "unreachable" not in result.err
        full = f"the output folder {out} is full: pictures wait on the server until there is room"
        assert result.err.count(full) == 1, result.err
        assert result.err.splitlines()[-1].startswith(
            f"batchline: the output folder {out} is still full after 1 s"
        )
        jobs = cli("jobs", "--json").json()
        assert {job["state"] for job in jobs} <= {"queued", "running"}, "waiting, not failed"

        filler.unlink()
        result = cli("run", "--until-idle", "--poll-interval", "0.05")
        assert result.code == 0, result.err
        for job_id in ids:
            (path,) = cli("show", job_id, "--json").json()["outputs"]
            assert Path(path).is_file()
            assert Path(path).is_relative_to(out)

"""`batchline grid`: an X/Y grid batch, run on the simulator, written as one picture."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PIL import Image

from core.pictures.grid_sheet import CELL, LABEL, TITLE

if TYPE_CHECKING:
    from pathlib import Path

    from simulator.thread import SimulatorThread
    from tests.cli.conftest import Cli


def test_a_finished_grid_batch_is_written_as_one_labelled_picture(
    cli: Cli, noise: str, sim_thread: SimulatorThread, tmp_path: Path
) -> None:
    queued = cli("queue", noise, "--grid", "2.strength=0.1,0.9", "--grid", "1.width=64,96")
    assert queued.code == 0, queued.err
    batch = cli("jobs", "--json").json()[0]["batch"]
    cli.server = sim_thread.url
    assert cli("run", "--until-idle", "--poll-interval", "0.05").code == 0
    written = cli("grid", batch, "--to", str(tmp_path / "sheets"))
    assert written.code == 0, written.err
    assert written.out == f"{tmp_path / 'sheets' / f'{batch}_grid.png'}\n"
    with Image.open(written.out.strip()) as sheet:
        assert sheet.size == (LABEL * 4 + 2 * CELL, TITLE + LABEL + 2 * CELL)


def test_a_batch_without_a_grid_or_unknown_is_one_line(cli: Cli, noise: str) -> None:
    cli("queue", noise)
    batch = cli("jobs", "--json").json()[0]["batch"]
    plain = cli("grid", batch)
    assert (plain.code, plain.err) == (2, f"batchline: batch {batch} has no X/Y grid to export\n")
    unknown = cli("grid", "batch_19990101_0001")
    assert unknown.code == 2
    assert unknown.err.count("\n") == 1


def test_a_three_axis_grid_is_written_as_one_picture_per_page(
    cli: Cli, home: Path, tmp_path: Path
) -> None:
    from core.ledger import Ledger
    from tests.core.pictures.test_grid_pages import three_axis_batch

    with Ledger(home) as ledger:
        batch, _ids = three_axis_batch(ledger, tmp_path)
    first = cli("grid", batch, "--to", str(tmp_path / "sheets"))
    assert first.code == 0, first.err
    names = [f"{batch}_grid_image-render_a.png", f"{batch}_grid_image-render_b.png"]
    assert first.out == "".join(f"{tmp_path / 'sheets' / name}\n" for name in names)
    again = cli("grid", batch, "--to", str(tmp_path / "sheets"))
    assert again.out == first.out, "the same pages again: the files already there"
    assert sorted(p.name for p in (tmp_path / "sheets").iterdir()) == names

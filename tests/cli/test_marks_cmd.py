"""`batchline mark`, `batchline starred`, `batchline rejected` and `batchline again`, on jobs run
by the simulator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from tests.cli.conftest import REPO
from tests.trash_home import use_trash

if TYPE_CHECKING:
    import pytest

    from simulator.thread import SimulatorThread
    from tests.cli.conftest import Cli


def test_starred_pictures_are_copied_and_marks_survive(
    cli: Cli, noise: str, sim_thread: SimulatorThread, tmp_path: Path
) -> None:
    ids = cli("queue", noise, "--count", "3").out.split()
    cli.server = sim_thread.url
    assert cli("run", "--until-idle", "--poll-interval", "0.05").code == 0
    assert cli("mark", ids[0], ids[2], "--star").code == 0
    assert cli("mark", ids[1], "--reject").code == 0
    assert cli("mark", ids[2], "--clear").code == 0
    batch = cli("jobs", "--json").json()[0]["batch"]
    copied = cli("starred", batch, "--to", str(tmp_path / "picks"))
    assert copied.code == 0, copied.err
    (picture,) = cli("show", ids[0], "--json").json()["outputs"]
    name = Path(picture).name
    assert copied.out == f"{tmp_path / 'picks' / name}\n"
    assert (tmp_path / "picks" / name).read_bytes() == Path(picture).read_bytes()


def test_starred_copies_carry_their_parameters_and_sidecar_on_request(
    cli: Cli, sim_thread: SimulatorThread, tmp_path: Path
) -> None:
    """A job of the portrait preset run by the simulator (a real KSampler workflow): its copy
    keeps ComfyUI's chunks and its pixels, and gets the A1111 text; --sidecar adds the JSON."""
    portrait = REPO / "resources" / "presets" / "Portrait txt2img (SD 1.5).json"
    assert cli("preset", "add", str(portrait)).code == 0
    (job,) = cli("queue", portrait.stem, "--seeds", "4242", "--set", "3.cfg=5.5").out.split()
    cli.server = sim_thread.url
    assert cli("run", "--until-idle", "--poll-interval", "0.05").code == 0
    cli("mark", job, "--star")
    batch = cli("jobs", "--json").json()[0]["batch"]
    copied = cli("starred", batch, "--to", str(tmp_path / "picks"), "--sidecar")
    assert copied.code == 0, copied.err
    (picture,) = cli("show", job, "--json").json()["outputs"]
    copy = tmp_path / "picks" / Path(picture).name
    with Image.open(copy) as copied_image, Image.open(picture) as original:
        assert copied_image.tobytes() == original.tobytes()
        assert copied_image.info["prompt"] == original.info["prompt"]
        text = copied_image.info["parameters"]
    assert "Seed: 4242, " in text
    assert "CFG scale: 5.5, " in text
    sidecar = json.loads(copy.with_suffix(".json").read_text("utf-8"))
    assert (sidecar["parameters"], sidecar["seed"], sidecar["job"]) == (text, 4242, job)


def test_unknown_jobs_and_batches_are_one_line(cli: Cli, noise: str, tmp_path: Path) -> None:
    (job,) = cli("queue", noise).out.split()
    unknown = cli("mark", job, "job_19990101_0001", "--star")
    assert (unknown.code, unknown.err) == (2, "batchline: no job 'job_19990101_0001'\n")
    batch = cli("starred", "batch_19990101_0001", "--to", str(tmp_path))
    assert batch.code == 2
    assert batch.err.count("\n") == 1
    assert "batch_19990101_0001" in batch.err
    nothing = cli("jobs", "--json").json()[0]["batch"]
    none = cli("starred", nothing, "--to", str(tmp_path))
    assert none.out == f"no starred picture in {nothing}\n"


def test_rejected_pictures_are_listed_then_moved_to_the_trash(
    cli: Cli,
    noise: str,
    sim_thread: SimulatorThread,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = cli("queue", noise, "--count", "4").out.split()
    cli.server = sim_thread.url
    assert cli("run", "--until-idle", "--poll-interval", "0.05").code == 0
    pictures = {job: Path(cli("show", job, "--json").json()["outputs"][0]) for job in ids}
    cli("mark", ids[0], ids[2], "--reject")
    cli("mark", ids[1], "--star")
    batch = cli("jobs", "--json").json()[0]["batch"]
    rejected = [pictures[ids[0]], pictures[ids[2]]]
    listed = cli("rejected", batch)
    assert (listed.code, listed.out) == (0, "".join(f"{p}\n" for p in rejected))
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    use_trash(monkeypatch, blocker / "data")  # no trash here: each one says why, and goes on
    refused = cli("rejected", batch, "--trash")
    assert (refused.code, refused.out) == (1, "")
    assert refused.err == "".join(f"cannot move {p}: Not a directory\n" for p in rejected)
    assert all(p.exists() for p in pictures.values())
    trash = use_trash(monkeypatch, tmp_path / "data")
    moved = cli("rejected", batch, "--trash")
    assert (moved.code, moved.out, moved.err) == (0, listed.out, "")
    assert sorted(p.name for p in trash.iterdir()) == sorted(p.name for p in rejected)
    assert [pictures[ids[1]].exists(), pictures[ids[3]].exists()] == [True, True]
    kept = cli("jobs", "--json").json()
    assert sorted(job["id"] for job in kept) == ids  # the jobs stay in the history
    assert cli("rejected", batch).out == f"no rejected picture in {batch}\n"
    unknown = cli("rejected", "batch_19990101_0001", "--trash")
    assert (unknown.code, unknown.out) == (2, "")
    assert unknown.err.count("\n") == 1
    assert "batch_19990101_0001" in unknown.err


def test_again_queues_one_job_with_that_seed_and_values(cli: Cli, noise: str) -> None:
    ids = cli("queue", noise, "--seeds", "11,12", "--set", "2.strength=0.25").out.split()
    result = cli("again", ids[1], "--json")
    assert result.code == 0, result.err
    made = result.json()
    assert made["seeds"] == {"2.seed": 12}
    assert made["of"] == ids[1]
    shown = cli("show", made["id"], "--json").json()
    assert shown["batch"] == made["batch"]
    assert shown["params"] == {"2.seed": 12, "2.strength": 0.25}
    unknown = cli("again", "job_19990101_0001")
    assert (unknown.code, unknown.err) == (2, "batchline: no job 'job_19990101_0001'\n")


def test_a_folder_that_cannot_be_made_is_one_line(cli: Cli, noise: str, tmp_path: Path) -> None:
    cli("queue", noise, "--grid", "2.strength=0.1,0.9")
    batch = cli("jobs", "--json").json()[0]["batch"]
    a_file = tmp_path / "a file"
    a_file.write_text("")
    for command in ("starred", "grid"):
        refused = cli(command, batch, "--to", str(a_file / "picks"))
        assert (refused.code, refused.err) == (
            1,
            f"batchline: {a_file / 'picks'}: Not a directory\n",
        ), command

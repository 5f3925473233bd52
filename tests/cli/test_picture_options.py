"""`batchline queue` over the artist's pictures: ``--images`` (one job per picture, an axis in
its place among the others, zipped with a prompt list), ``--set NODE.INPUT=@picture.png`` (one
picture for every job), a dry run's count and pictures; each refused file named in one line,
nothing queued; `show` and `again` of a picture job."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from core.inputs import PictureRef, PictureStore
from core.inputs import picture_store as store_module
from core.ledger import Ledger
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli, run_until_idle
from tests.core.inputs.pictures import make_folder, make_png

# LoadImage -> ImageAddNoise(seed) -> SaveImage: image-to-image without models.
IMG2IMG = {
    "1": {"class_type": "LoadImage", "inputs": {"image": "example.png"}},
    "2": {"class_type": "ImageAddNoise", "inputs": {"image": ["1", 0], "seed": 1, "strength": 0.5}},
    "3": {"class_type": "SaveImage", "inputs": {"images": ["2", 0], "filename_prefix": "i2i"}},
}


@pytest.fixture
def img2img(cli: Cli, tmp_path: Path) -> str:
    path = tmp_path / "img2img.json"
    path.write_text(json.dumps(IMG2IMG), encoding="utf-8")
    assert cli("preset", "add", str(path)).code == 0
    return "img2img"


def queued(cli: Cli, *args: str) -> list[str]:
    result = cli("queue", "img2img", *args)
    assert result.code == 0, result.err
    return result.out.split()


def pictures_of(home: Path, ids: list[str], key: str = "1.image") -> list[PictureRef]:
    with Ledger(home) as ledger:
        refs = [PictureRef.from_param(ledger.job(job_id).params[key]) for job_id in ids]
    assert None not in refs
    return [ref for ref in refs if ref is not None]


def store_of(home: Path) -> PictureStore:
    with Ledger(home) as ledger:
        return PictureStore.of(ledger)


def test_images_makes_one_job_per_picture_in_natural_order_each_kept(
    cli: Cli, img2img: str, home: Path, tmp_path: Path
) -> None:
    made = make_folder(tmp_path / "renders", 12)
    (tmp_path / "renders" / ".hidden.png").write_bytes(made[0].read_bytes())
    (tmp_path / "renders" / "notes.txt").write_text("not a picture, not taken")
    ids = queued(cli, "--images", f"1.image={tmp_path / 'renders'}", "--seeds", "7")
    refs = pictures_of(home, ids)
    assert [ref.file for ref in refs] == [f"render_{i}.png" for i in range(1, 13)]
    assert [ref.source for ref in refs] == [str(path.absolute()) for path in made]
    store = store_of(home)
    for ref, path in zip(refs, made, strict=True):
        assert ref.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
        assert store.read(ref) == path.read_bytes()
    with Ledger(home) as ledger:
        spec = ledger.batch(ledger.job(ids[0]).batch).spec
    assert spec["grid"] == [{"input": "1.image", "values": [ref.to_param() for ref in refs]}]


def test_pictures_take_their_place_among_the_axes_and_zip_with_a_prompt_list(
    cli: Cli, img2img: str, home: Path, tmp_path: Path
) -> None:
    make_folder(tmp_path / "renders", 3)
    (tmp_path / "names.txt").write_text("fox\nowl\nhare\n", encoding="utf-8")
    ids = queued(
        cli,
        "--grid",
        "2.strength=0.25,0.75",
        "--images",
        f"1.image={tmp_path / 'renders' / '*.png'}",
        "--values",
        f"3.filename_prefix=@{tmp_path / 'names.txt'}",
        "--zip",
        "1.image,3.filename_prefix",
    )
    assert len(ids) == 6, "zipped: 2 strengths x 3 (picture, name) pairs, not 2 x 3 x 3"
    with Ledger(home) as ledger:
        jobs = [ledger.job(job_id).params for job_id in ids]
        spec = ledger.batch(ledger.job(ids[0]).batch).spec
    assert [axis["input"] for axis in spec["grid"]] == [
        "2.strength",
        "1.image",
        "3.filename_prefix",
    ]
    files = [ref.file for ref in pictures_of(home, ids)]
    pairs = {(file, p["3.filename_prefix"]) for file, p in zip(files, jobs, strict=True)}
    assert pairs == {("render_1.png", "fox"), ("render_2.png", "owl"), ("render_3.png", "hare")}


def test_set_at_a_file_is_one_picture_for_every_job_only_on_a_picture_input(
    cli: Cli, img2img: str, home: Path, tmp_path: Path
) -> None:
    picture = make_png(tmp_path / "my photo.png", shade=4)
    ids = queued(
        cli, "--count", "3", "--set", f"1.image=@{picture}", "--set", "3.filename_prefix=@home"
    )
    refs = pictures_of(home, ids)
    assert {(ref.file, ref.source) for ref in refs} == {("my photo.png", str(picture))}
    with Ledger(home) as ledger:
        assert {ledger.job(job_id).params["3.filename_prefix"] for job_id in ids} == {"@home"}
    name_only = queued(cli, "--set", "1.image=example.png")  # a server's file, by its name
    with Ledger(home) as ledger:
        assert ledger.job(name_only[0]).params == {"1.image": "example.png"}


def refused(cli: Cli, home: Path, *args: str) -> str:
    result = cli("queue", "img2img", *args)
    assert result.code == 2, result
    (line,) = result.err.strip().splitlines()
    with Ledger(home) as ledger:
        assert ledger.jobs() == []
    return line


def test_a_bad_file_or_an_empty_folder_is_refused_naming_it_and_nothing_is_queued(
    cli: Cli, img2img: str, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert refused(cli, home, "--images", "1.image") == (
        "batchline: argument --images: '1.image' is not of the form NODE.INPUT=DIR_OR_GLOB"
    )
    gone = tmp_path / "gone.png"
    assert refused(cli, home, "--set", f"1.image=@{gone}") == (
        f"batchline: {gone}: no such picture file"
    )
    empty = tmp_path / "empty"
    empty.mkdir()
    assert refused(cli, home, "--images", f"1.image={empty}") == (
        f"batchline: argument --images: {empty}: the folder holds no picture files"
    )
    assert f"{tmp_path}/none*.png: no file matches" in refused(
        cli, home, "--images", f"1.image={tmp_path}/none*.png"
    )
    folder = tmp_path / "renders"
    make_folder(folder, 3)
    (folder / "render_2.png").write_text("a shopping list")
    assert refused(cli, home, "--images", f"1.image={folder}") == (
        f"batchline: {folder / 'render_2.png'}: not a picture (Pillow cannot read it)"
    )
    big = make_png(tmp_path / "big.png", size=(64, 64))
    monkeypatch.setattr(store_module, "MAX_PICTURE_BYTES", big.stat().st_size - 1)
    assert refused(cli, home, "--set", f"1.image=@{big}").startswith(
        f"batchline: {big}: too large to upload"
    )
    assert refused(cli, home, "--images", f"2.strength={big}") == (
        "batchline: --images 2.strength: not an input that takes a picture file "
        "(the preset's that do: 1.image)"
    )


def test_a_dry_run_says_the_count_and_the_pictures_and_keeps_nothing(
    cli: Cli, img2img: str, home: Path, tmp_path: Path
) -> None:
    made = make_folder(tmp_path / "renders", 3)
    args = ("--images", f"1.image={tmp_path / 'renders'}", "--count", "2", "--dry-run")
    result = cli("queue", "img2img", *args)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "6 jobs (nothing queued), the first:"
    assert lines[1:6] == [
        "  1.image=render_1.png 2.seed=0",
        "  1.image=render_2.png 2.seed=0",
        "  1.image=render_3.png 2.seed=0",
        "  1.image=render_1.png 2.seed=1",
        "  1.image=render_2.png 2.seed=1",
    ]
    assert lines[6:] == ["1.image: 3 pictures", *(f"  {path.absolute()}" for path in made)]
    listed = cli("queue", "img2img", *args, "--json").json()
    assert listed["jobs"] == 6
    assert [p["file"] for p in listed["pictures"]["1.image"]] == [p.name for p in made]
    assert not store_of(home).root.exists(), "a dry run keeps no copy"
    with Ledger(home) as ledger:
        assert ledger.jobs() == []


def test_show_lists_the_pictures_and_a_text_of_several_lines_in_full(
    cli: Cli, img2img: str, home: Path, tmp_path: Path
) -> None:
    picture = make_png(tmp_path / "render_003.png", shade=3)
    (job,) = queued(
        cli, "--set", f"1.image=@{picture}", "--set", "3.filename_prefix=first line\nsecond"
    )
    (ref,) = pictures_of(home, [job])
    shown = cli("show", job).out.splitlines()
    assert shown[2] == "  params: 1.image=render_003.png 3.filename_prefix=(2 lines, below)"
    assert (
        shown[3:11]
        == [
            "  inputs:",  # each as the composer names it
            "    1.image            Load Image · image",
            "    3.filename_prefix  Save Image · filename_prefix",
            "  3.filename_prefix (Save Image · filename_prefix):",
            "    first line",
            "    second",
            "  pictures:",
            f"    1.image: render_003.png from {picture} (sha256 {ref.sha256[:12]}, "
            f"{ref.size:,} bytes)",
        ]
    )
    data = cli("show", job, "--json").json()
    assert data["pictures"] == {
        "1.image": {"file": ref.file, "source": ref.source, "sha256": ref.sha256, "size": ref.size}
    }
    assert data["params"]["3.filename_prefix"] == "first line\nsecond"
    listed = cli("jobs").out
    assert "1.image=render_003.png 3.filename_prefix=first line⏎second" in listed


def test_again_queues_the_same_picture_from_its_kept_copy_when_the_source_is_gone(
    cli: Cli, img2img: str, home: Path, tmp_path: Path, sim_thread: SimulatorThread, outputs: Path
) -> None:
    make_folder(tmp_path / "renders", 2)
    first = queued(cli, "--images", f"1.image={tmp_path / 'renders'}", "--seeds", "3")
    run_until_idle(cli, sim_thread)
    for path in (tmp_path / "renders").iterdir():
        path.unlink()
    assert sim_thread.wipe_input() > 0  # the server lost them too: they go up again
    uploads = sim_thread.upload_stats()["uploads"]
    again = []
    for job_id in first:
        result = cli("again", job_id)
        assert result.code == 0, result.err
        again += result.out.split()
    assert pictures_of(home, again) == pictures_of(home, first)
    run_until_idle(cli, sim_thread)
    assert sim_thread.upload_stats()["uploads"] == uploads + 2, "from the kept copies"
    read, input_dir = sim_thread.inputs_read(), sim_thread.call(lambda sim: sim.input_dir)
    for old, new, ref in zip(first, again, pictures_of(home, again), strict=True):
        jobs = [cli("show", job_id, "--json").json() for job_id in (old, new)]
        assert [job["state"] for job in jobs] == ["succeeded", "succeeded"]
        values = [read[job["attempts"][-1]["prompt_id"]] for job in jobs]
        assert values[0] == values[1] == [f"batchline/{ref.server_name}"]
        sent = input_dir / "batchline" / ref.server_name
        assert hashlib.sha256(sent.read_bytes()).hexdigest() == ref.sha256

"""An X/Y grid batch exported as one labelled picture."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.errors import InputError
from core.job_state import Reason
from core.ledger import Ledger, PresetContent
from core.pictures.grid_pages import sheets
from core.pictures.grid_sheet import CELL, LABEL, TITLE, export
from core.presets import load_preset, workflow_hash
from tests.core.helpers import NOISE_WORKFLOW, succeed, succeed_late

PRESETS = Path(__file__).parents[2] / "data" / "presets"
COLOURS = {0.1: (200, 30, 30), 0.5: (30, 200, 30), 0.9: (30, 30, 200)}


def grid_batch(ledger: Ledger, tmp_path: Path, seeds: int = 1) -> tuple[str, list[str]]:
    ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
    spec = BatchSpec(
        seeds=SeedPlan(count=seeds),
        grid=(GridAxis("2.strength", (0.1, 0.5, 0.9)), GridAxis("1.width", (64, 128))),
    )
    batch, ids = queue_batch(ledger, "noise", spec)
    for n, job_id in enumerate(ids):
        params = ledger.job(job_id).params
        prompt_id = f"p{n}"
        ledger.submit_attempt(job_id, prompt_id, "http://x", "wf")
        ledger.observe_queued(prompt_id, n)
        ledger.observe_running(prompt_id)
        if params["2.strength"] == 0.9 and params["1.width"] == 128:
            ledger.observe_failed(prompt_id, Reason.oom)
            continue
        picture = tmp_path / f"{job_id}.png"
        Image.new("RGB", (64, 64), COLOURS[params["2.strength"]]).save(picture)
        succeed(ledger, prompt_id, [str(picture)])
    return batch.id, ids


def test_the_grid_is_one_picture_labelled_on_its_edges(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        batch, _ids = grid_batch(ledger, tmp_path)
        (path,) = export(ledger, batch, tmp_path / "out")
        again = export(ledger, batch, tmp_path / "out")
    assert path.name == f"{batch}_grid.png"
    assert again == [path], "the same sheet again is the same file, not a copy"
    with Image.open(path) as sheet:
        left = LABEL * 4
        assert sheet.size == (left + 3 * CELL, TITLE + LABEL + 2 * CELL)
        rgb = sheet.convert("RGB")
        for column, strength in enumerate((0.1, 0.5, 0.9)):
            centre = (left + column * CELL + 30, TITLE + LABEL + 30)
            assert rgb.getpixel(centre) == COLOURS[strength]
        failed = (left + 2 * CELL + CELL // 2, TITLE + LABEL + CELL + 20)
        assert rgb.getpixel(failed) == (241, 243, 245)  # a grey cell saying why, no picture
        top, side = (0, 0, left + 3 * CELL, TITLE + LABEL), (0, TITLE + LABEL, left, sheet.height)
        for edge in (top, side):
            assert ink(rgb.crop(edge)) > 100, f"no labels written in {edge}"


def ink(image: Image.Image) -> int:
    """How many dark (text) pixels ``image`` holds."""
    return sum(1 for pixel in image.get_flattened_data() if max(pixel) < 100)


def test_a_batch_varying_its_seed_gives_a_sheet_per_seed_and_no_grid_is_refused(
    tmp_path: Path,
) -> None:
    with Ledger(tmp_path / "home") as ledger:
        batch, _ids = grid_batch(ledger, tmp_path, seeds=2)
        axes, found = sheets(ledger, batch)
        assert [axis.name for axis in axes] == ["ImageAddNoise · strength", "EmptyImage · width"]
        assert [sheet.label for sheet in found] == [
            "ImageAddNoise · seed 0",
            "ImageAddNoise · seed 1",
        ]
        assert all(len(sheet.cells) == 6 for sheet in found)
        paths = export(ledger, batch, tmp_path / "out")
        names = [p.name for p in paths]
        assert names == [f"{batch}_grid_seed-0.png", f"{batch}_grid_seed-1.png"]
        plain, _ = queue_batch(ledger, "noise", BatchSpec())
        with pytest.raises(InputError, match=f"batch {plain.id} has no X/Y grid to export"):
            export(ledger, plain.id, tmp_path / "out")


def test_a_job_that_succeeded_late_shows_its_picture_in_the_grid(tmp_path: Path) -> None:
    """Its picture is on the given-up attempt that succeeded after all, not on the current one."""
    from core.job_state import AttemptResult

    with Ledger(tmp_path / "home") as ledger:
        ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
        spec = BatchSpec(grid=(GridAxis("2.strength", (0.1, 0.5)),))
        batch, (late, _other) = queue_batch(ledger, "noise", spec)
        picture = tmp_path / "late.png"
        Image.new("RGB", (64, 64), COLOURS[0.1]).save(picture)
        ledger.submit_attempt(late, "old", "http://x", "wf")
        ledger.observe_retryable("old", AttemptResult.lost, Reason.timeout)
        ledger.submit_attempt(late, "new", "http://x", "wf")
        assert succeed_late(ledger, "old", [str(picture)])
        _axes, (sheet,) = sheets(ledger, batch.id)
    assert sheet.cells[(0, 0)].pictures == (str(picture),)


def test_a_colour_axis_reads_its_values_as_colours(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
        spec = BatchSpec(grid=(GridAxis("1.color", ("#FF0000", 255)), GridAxis("1.width", (64,))))
        batch, _ids = queue_batch(ledger, "noise", spec)
        colour, width = sheets(ledger, batch.id)[0]
    assert colour.colour
    assert [colour.text(v) for v in colour.values] == ["#FF0000", "#0000FF"]
    assert not width.colour
    assert width.text(64) == "64"


def test_a_checkpoint_axis_queued_first_keeps_its_place_on_the_sheet(tmp_path: Path) -> None:
    preset = load_preset(PRESETS / "api_primitive_seed.json", seed_inputs=["3.seed"])
    checkpoints = ("b.safetensors", "a.safetensors")
    spec = BatchSpec(
        seeds=SeedPlan(count=2),
        grid=(GridAxis("3.cfg", (4, 7, 9)), GridAxis("4.ckpt_name", checkpoints)),
    )
    with Ledger(tmp_path / "home") as ledger:
        api = preset.api_workflow
        ledger.presets.add("sd", PresetContent(workflow_hash(api), api))
        batch, ids = queue_batch(ledger, "sd", spec, seed_inputs=["3.seed"])
        queued = [ledger.job(job_id).params["4.ckpt_name"] for job_id in ids]
        axes, found = sheets(ledger, batch.id)
    assert queued == ["b.safetensors"] * 6 + ["a.safetensors"] * 6  # one switch
    assert [axis.key for axis in axes] == ["3.cfg", "4.ckpt_name"]  # X stays X, Y stays Y
    assert axes[0].values == (4.0, 7.0, 9.0)
    assert axes[1].values == checkpoints  # in the order the artist gave
    assert [sheet.label for sheet in found] == ["Seed · value 0", "Seed · value 1"]  # a primitive
    for sheet in found:
        assert len(sheet.cells) == 6
        for (column, row), cell in sheet.cells.items():
            assert cell.job.params["3.cfg"] == axes[0].values[column]
            assert cell.job.params["4.ckpt_name"] == checkpoints[row]


def test_a_three_axis_grid_exports_one_picture_per_page_named_by_its_values(
    tmp_path: Path,
) -> None:
    from tests.core.pictures.test_grid_pages import page_colour, three_axis_batch

    out = tmp_path / "out"
    with Ledger(tmp_path / "home") as ledger:
        batch, ids = three_axis_batch(ledger, tmp_path)
        params = {job_id: ledger.job(job_id).params for job_id in ids}
        out.mkdir()
        taken = out / f"{batch}_grid_image-render_b.png"
        taken.write_bytes(b"the artist's own file")
        paths = export(ledger, batch, out)
        again = export(ledger, batch, out)
    assert [path.name for path in paths] == [
        f"{batch}_grid_image-render_a.png",
        f"{batch}_grid_image-render_b-2.png",  # the name was taken by another file
    ]
    assert taken.read_bytes() == b"the artist's own file", "nothing is written over"
    assert again == paths, "the same pages again are the same files, not copies"
    assert sorted(out.iterdir()) == sorted([*paths, taken])
    left = LABEL * 4
    for path, render in zip(paths, ("render_a", "render_b"), strict=True):
        with Image.open(path) as sheet:
            assert sheet.size == (left + 2 * CELL, TITLE + LABEL + 2 * CELL)
            rgb = sheet.convert("RGB")
            title = rgb.crop((0, 0, sheet.width, TITLE))
            assert ink(title) > 100
            for row, steps in enumerate((10, 20)):
                for column in range(2):
                    job = next(
                        p
                        for p in params.values()
                        if p["3.steps"] == steps
                        and p["3.cfg"] == (4, 7)[column]
                        and p["10.image"]["picture"]["file"] == f"{render}.png"
                    )
                    centre = (left + column * CELL + 30, TITLE + LABEL + row * CELL + 30)
                    assert rgb.getpixel(centre) == page_colour(job)


def test_a_zipped_pair_is_drawn_as_one_axis(tmp_path: Path) -> None:
    from tests.core.pictures.test_grid_pages import grid_jobs

    grid = (("3.sampler_name", ("euler", "dpmpp_2m")), ("3.scheduler", ("normal", "karras")))
    with Ledger(tmp_path / "home") as ledger:
        batch, _ids = grid_jobs(ledger, grid, zips=[["3.sampler_name", "3.scheduler"]])
        (path,) = export(ledger, batch, tmp_path / "out")
    assert path.name == f"{batch}_grid.png"
    with Image.open(path) as sheet:
        assert sheet.size == (2 * CELL, TITLE + LABEL + CELL), "two columns, one row"


def test_a_pages_file_name_carries_its_values_in_safe_characters() -> None:
    from core.pictures.grid_pages import Sheet
    from core.pictures.grid_sheet import MAX_NAME_PART, page_file_name

    assert page_file_name("b1", None) == "b1_grid.png"
    assert page_file_name("b1", Sheet()) == "b1_grid.png"
    page = Sheet(("euler · normal", "ckpt_name sd/v1:5.safetensors", "seed 12"))
    assert (
        page_file_name("b1", page)
        == "b1_grid_euler-normal_ckpt_name-sd-v1-5.safetensors_seed-12.png"
    )
    assert (
        page_file_name(
            "b1",
            Sheet(
                (
                    "…",
                    "../..",
                )
            ),
        )
        == "b1_grid.png"
    )
    long = page_file_name("b1", Sheet(("prompt " + "fox " * 80,)))
    assert len(long) <= len("b1_grid_.png") + MAX_NAME_PART


def test_long_titles_and_values_are_wrapped_onto_more_lines_not_cut() -> None:
    from core.pictures.grid_pages import Axis, Sheet
    from core.pictures.grid_sheet import render, wrap

    prompt = "a red fox asleep in deep snow under a lantern at dusk, oil on canvas, " * 2
    long_axis = Axis("Positive prompt · text " * 4, ("6.text",), (prompt, "a cat"))
    short_axis = Axis("Positive prompt · text", ("6.text",), ("a dog", "a cat"))
    rows = Axis("KSampler · cfg", ("3.cfg",), (4, 7))
    long_sheet, short_sheet = (
        render([long_axis, rows], Sheet()),
        render([short_axis, rows], Sheet()),
    )
    assert long_sheet.width == short_sheet.width == LABEL * 4 + 2 * CELL
    labels = long_sheet.height - short_sheet.height
    assert labels >= 3 * 20, "the title and the long value take more lines"
    rgb = long_sheet.convert("RGB")
    second_lines = rgb.crop((LABEL * 4, TITLE + LABEL, LABEL * 4 + CELL, TITLE + LABEL + labels))
    assert ink(second_lines) > 100, "the value goes on below its first line"
    from PIL import ImageDraw, ImageFont

    draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    font = ImageFont.load_default(size=16)
    lines = wrap(draw, prompt + "x" * 80, font, 200)
    assert all(draw.textlength(line, font=font) <= 200 for line in lines)
    assert "".join(lines).replace(" ", "") == (prompt + "x" * 80).replace(" ", ""), "all kept"


def test_a_failed_cell_says_its_failure_in_words(tmp_path: Path) -> None:
    from core.pictures.grid_pages import read_grid
    from core.pictures.grid_sheet import what_became

    with Ledger(tmp_path / "home") as ledger:
        batch, _ids = grid_batch(ledger, tmp_path)
        (sheet,) = read_grid(ledger, batch).sheets
    assert what_became(sheet.cells[(2, 1)].job) == ("failed: out of memory", "#a4262c")


def test_a_retry_smaller_takes_the_cell_of_the_job_it_retried_one_grid_per_batch(
    tmp_path: Path,
) -> None:
    from core.batch import queue_smaller
    from core.pictures.grid_pages import read_grid

    with Ledger(tmp_path / "home") as ledger:
        batch, ids = grid_batch(ledger, tmp_path)
        failed = next(job_id for job_id in ids if ledger.job(job_id).state.value == "failed")
        retry = queue_smaller(ledger, failed, shrink=["size"])
        assert ledger.job(retry).params["1.width"] == 96, "smaller: no longer at width 128"
        grid = read_grid(ledger, batch)
        (sheet,) = grid.sheets
        assert grid.axes[1].values == (64, 128), "its smaller width is no new row"
        assert grid.page_inputs == [], "nor its height a page"
        assert sheet.cells[(2, 1)].job.id == retry, "the newer job takes the failed one's cell"
        ledger.submit_attempt(retry, "retry", "http://x", "wf")
        ledger.observe_running("retry")
        ledger.observe_failed("retry", Reason.oom)
        again = queue_smaller(ledger, retry, shrink=["size"])
        (sheet,) = read_grid(ledger, batch).sheets
        assert sheet.cells[(2, 1)].job.id == again, "a retry of a retry: still the same cell"
        picture = tmp_path / "smaller.png"
        Image.new("RGB", (64, 64), COLOURS[0.9]).save(picture)
        ledger.submit_attempt(again, "again", "http://x", "wf")
        ledger.observe_running("again")
        succeed(ledger, "again", [str(picture)])
        paths = export(ledger, batch, tmp_path / "out")
    assert [path.name for path in paths] == [f"{batch}_grid.png"], "one grid, not a third file"
    with Image.open(paths[0]) as grid_picture:
        cell = (LABEL * 4 + 2 * CELL + 30, TITLE + LABEL + CELL + 30)
        assert grid_picture.convert("RGB").getpixel(cell) == COLOURS[0.9]

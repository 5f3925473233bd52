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
        assert [sheet.label for sheet in found] == ["seed 0", "seed 1"]
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
    assert [sheet.label for sheet in found] == ["value 0", "value 1"]  # the seed's primitive
    for sheet in found:
        assert len(sheet.cells) == 6
        for (column, row), cell in sheet.cells.items():
            assert cell.job.params["3.cfg"] == axes[0].values[column]
            assert cell.job.params["4.ckpt_name"] == checkpoints[row]

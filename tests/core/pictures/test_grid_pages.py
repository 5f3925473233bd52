"""A grid batch read as axes and pages: any number of axes from the stored spec, zip groups as
one axis, the third axis and further (and the seeds) as pages, pictures labelled by stem."""

from __future__ import annotations

import hashlib
import itertools
from typing import TYPE_CHECKING, Any

import pytest
from PIL import Image

from core.errors import InputError
from core.ledger import Ledger, NewJob, PresetContent
from core.pictures.grid_pages import (
    axis_groups,
    read_grid,
    sheets,
    value_label,
)
from core.presets import workflow_hash
from tests.core.helpers import succeed

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

SAMPLER_WORKFLOW: dict[str, Any] = {
    "3": {
        "class_type": "KSampler",
        "inputs": {
            "seed": 1,
            "steps": 20,
            "cfg": 7.0,
            "sampler_name": "euler",
            "scheduler": "normal",
            "denoise": 0.6,
            "model": ["4", 0],
            "positive": ["6", 0],
            "negative": ["7", 0],
            "latent_image": ["12", 0],
        },
    },
    "10": {"class_type": "LoadImage", "inputs": {"image": "example.png"}},
}


def picture(file: str) -> dict[str, Any]:
    """A picture value as a job's params hold it (`core.inputs.picture_ref`)."""
    return {
        "picture": {
            "sha256": hashlib.sha256(file.encode()).hexdigest(),
            "file": file,
            "source": f"/in/{file}",
            "size": 99,
        }
    }


def grid_spec(
    grid: Sequence[tuple[str, Sequence[Any]]], zips: Sequence[Sequence[str]] = ()
) -> dict[str, Any]:
    """A stored batch spec in the issue-29 shape (as `asdict(BatchSpec)` writes it)."""
    return {
        "seeds": {"mode": "sequence", "count": 1, "start": 0, "step": 1, "values": []},
        "overrides": {},
        "grid": [{"input": key, "values": list(values)} for key, values in grid],
        "zips": [list(group) for group in zips],
        "wildcards": {},
        "requester": "",
        "priority": 0,
    }


def grid_jobs(
    ledger: Ledger,
    grid: Sequence[tuple[str, Sequence[Any]]],
    zips: Sequence[Sequence[str]] = (),
    seeds: Sequence[int] = (1,),
) -> tuple[str, list[str]]:
    """A batch of the sampler workflow with one job per seed and grid point (a zip group's
    axes walking together), created in the ledger as queue_batch would store it."""
    if "sampler" not in ledger.presets.names():
        ledger.presets.add(
            "sampler", PresetContent(workflow_hash(SAMPLER_WORKFLOW), SAMPLER_WORKFLOW)
        )
    values = dict(grid)
    zipped = {key for group in zips for key in group}
    groups = [tuple(group) for group in zips] + [(key,) for key, _ in grid if key not in zipped]
    steps = [list(zip(*(values[key] for key in group), strict=True)) for group in groups]
    jobs = []
    for seed in seeds:
        for point in itertools.product(*steps):
            params: dict[str, Any] = {"3.seed": seed}
            for group, step in zip(groups, point, strict=True):
                params.update(zip(group, step, strict=True))
            jobs.append(NewJob(params))
    batch, ids = ledger.create_batch(
        "sampler", jobs, requester="tester", spec=grid_spec(grid, zips)
    )
    return batch.id, ids


RENDERS = (picture("render_a.png"), picture("render_b.png"))
THREE_AXES = (("3.cfg", (4, 7)), ("3.steps", (10, 20)), ("10.image", RENDERS))


def three_axis_batch(
    ledger: Ledger, tmp_path: Path, seeds: Sequence[int] = (1,)
) -> tuple[str, list[str]]:
    """cfg × steps × input picture; each job succeeds with a picture of its own colour
    (red: render_a, blue: render_b; darker with more steps)."""
    batch, ids = grid_jobs(ledger, THREE_AXES, seeds=seeds)
    for n, job_id in enumerate(ids):
        succeed_with(ledger, tmp_path, job_id, f"p{n}", page_colour(ledger.job(job_id).params))
    return batch, ids


def page_colour(params: dict[str, Any]) -> tuple[int, int, int]:
    shade = 250 if params["3.steps"] == 10 else 120
    return (shade, 0, 0) if params["10.image"] == RENDERS[0] else (0, 0, shade)


def succeed_with(
    ledger: Ledger, tmp_path: Path, job_id: str, prompt_id: str, colour: tuple[int, int, int]
) -> None:
    ledger.submit_attempt(job_id, prompt_id, "http://x", "wf")
    ledger.observe_queued(prompt_id, 0)
    ledger.observe_running(prompt_id)
    path = tmp_path / f"{job_id}.png"
    Image.new("RGB", (64, 64), colour).save(path)
    assert succeed(ledger, prompt_id, [str(path)])


def test_a_third_axis_makes_a_page_per_value_titled_by_its_picture(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        batch, ids = three_axis_batch(ledger, tmp_path)
        grid = read_grid(ledger, batch)
    assert [axis.name for axis in grid.axes] == [
        "KSampler · cfg",
        "KSampler · steps",
        "Load Image · image",  # the catalogue's display name, as the composer says it
    ]
    assert [sheet.label for sheet in grid.sheets] == [
        "Load Image · image render_a",
        "Load Image · image render_b",
    ]
    assert [sheet.file_parts for sheet in grid.sheets] == [("image render_a",), ("image render_b",)]
    assert grid.page_names() == ["Load Image · image"]
    assert grid.page_inputs == [], "one seed: no page of its own"
    assert sum(len(sheet.cells) for sheet in grid.sheets) == len(ids) == 8
    for sheet, render in zip(grid.sheets, RENDERS, strict=True):
        assert sorted(sheet.cells) == [(0, 0), (0, 1), (1, 0), (1, 1)]
        for (column, row), cell in sheet.cells.items():
            params = cell.job.params
            assert (params["3.cfg"], params["3.steps"], params["10.image"]) == (
                (4, 7)[column],
                (10, 20)[row],
                render,
            )
            assert cell.pictures == (str(tmp_path / f"{cell.job.id}.png"),)


def test_seeds_that_vary_make_pages_after_the_further_axes(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        batch, _ids = grid_jobs(ledger, THREE_AXES, seeds=(10, 9))
        grid = read_grid(ledger, batch)
    assert [sheet.label for sheet in grid.sheets] == [
        "Load Image · image render_a, KSampler · seed 9",
        "Load Image · image render_a, KSampler · seed 10",  # 9 before 10, whatever the queue's
        "Load Image · image render_b, KSampler · seed 9",
        "Load Image · image render_b, KSampler · seed 10",
    ]
    assert grid.page_names() == ["Load Image · image", "KSampler · seed"]
    assert all(len(sheet.cells) == 4 for sheet in grid.sheets)


def test_every_axis_past_the_second_multiplies_the_pages(tmp_path: Path) -> None:
    four = (*THREE_AXES, ("3.denoise", (0.3, 0.6, 0.9)))
    with Ledger(tmp_path / "home") as ledger:
        batch, _ids = grid_jobs(ledger, four)
        axes, found = sheets(ledger, batch)
    assert len(axes) == 4
    assert [sheet.parts for sheet in found] == [
        (f"Load Image · image {stem}", f"KSampler · denoise {value}")
        for stem in ("render_a", "render_b")
        for value in (0.3, 0.6, 0.9)
    ]


def test_a_zip_group_is_one_axis_its_values_read_together(tmp_path: Path) -> None:
    grid = (
        ("3.sampler_name", ("euler", "dpmpp_2m")),
        ("3.cfg", (4, 7)),
        ("3.scheduler", ("normal", "karras")),
    )
    with Ledger(tmp_path / "home") as ledger:
        batch, ids = grid_jobs(ledger, grid, zips=[["3.sampler_name", "3.scheduler"]])
        axes, found = sheets(ledger, batch)
    assert len(ids) == 4, "a zipped pair walks together: N jobs, not N²"
    zipped, cfg = axes
    assert zipped.name == "KSampler · sampler_name + KSampler · scheduler"
    assert zipped.keys == ("3.sampler_name", "3.scheduler")
    assert [zipped.text(value) for value in zipped.values] == [
        "euler · normal",
        "dpmpp_2m · karras",
    ]
    assert [zipped.label(value) for value in zipped.values] == [
        "euler · normal",
        "dpmpp_2m · karras",
    ]
    assert cfg.label(7) == "cfg 7"
    assert cfg.named_label(7) == "KSampler · cfg 7"
    (sheet,) = found
    assert sheet.label == ""
    for (column, _row), cell in sheet.cells.items():
        assert cell.job.params["3.sampler_name"] == ("euler", "dpmpp_2m")[column]
        assert cell.job.params["3.scheduler"] == ("normal", "karras")[column]


def test_the_axes_of_a_stored_spec_keep_its_order_and_leave_out_what_they_cannot_read() -> None:
    spec = grid_spec(
        [("3.cfg", (1,)), ("3.sampler_name", ("a",)), ("3.steps", (1,)), ("3.scheduler", ("b",))]
    )
    spec["grid"] += [{"values": [1]}, "junk", {"input": "3.cfg", "values": [2]}]
    spec["zips"] = [
        ["3.scheduler", "3.sampler_name", "9.nowhere"],
        "junk",
        ["3.sampler_name", "3.steps"],
    ]
    assert axis_groups(spec) == [("3.cfg",), ("3.scheduler", "3.sampler_name"), ("3.steps",)]
    assert axis_groups({"grid": [{"input": "1.width"}]}) == [("1.width",)], "no zips: as before"
    assert axis_groups({}) == []


def test_a_batch_without_a_grid_is_refused(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        batch, _ids = grid_jobs(ledger, ())
        with pytest.raises(InputError, match=f"^batch {batch} has no X/Y grid to export$"):
            read_grid(ledger, batch)


def test_a_picture_value_is_labelled_by_its_stem_any_other_as_sent() -> None:
    assert value_label(picture("renders/render_003.png")) == "render_003"
    assert value_label({"picture": {"file": "a.png"}}, limit=40) == '{"picture": {"file": "a.png"}}'
    assert value_label(picture("render_003.png")) == "render_003"
    assert value_label(picture("a_very_long_render_name_indeed.png"), limit=10) == "a_very_lo…"
    assert value_label({"a": 1}) == '{"a": 1}'
    assert value_label(255, colour=True) == "#0000FF"


def test_a_retrys_label_says_what_it_made_smaller(tmp_path: Path) -> None:
    from core.pictures.grid_pages import smaller_text

    with Ledger(tmp_path / "home") as ledger:
        _batch, (original, *_rest) = grid_jobs(ledger, (("3.cfg", (4, 7)),))
        job = ledger.job(original)
    from dataclasses import replace

    both = replace(job, params={**job.params, "5.width": 768, "5.height": 768})
    batch = replace(job, params={**job.params, "5.batch_size": 3})
    assert smaller_text(both, job) == "smaller: 768×768"
    assert smaller_text(batch, job) == "smaller: batch 3"
    assert smaller_text(job, job) == "smaller"

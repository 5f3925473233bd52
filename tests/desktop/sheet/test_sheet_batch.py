"""Tests for desktop.sheet.sheet_batch: one batch read at once for the sheet (plain Python, no
Qt): its jobs in seed order with their labels, and where each job of a grid sits."""

from __future__ import annotations

from core.batch import BatchSpec, GridAxis, SeedMode, SeedPlan, queue_batch
from core.ledger import Ledger, PresetContent
from core.ledger.marks import Mark
from core.presets import workflow_hash
from desktop.sheet.sheet_batch import read_batch
from tests.core.helpers import NOISE_WORKFLOW


def stored(ledger: Ledger) -> str:
    ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
    return "noise"


def test_a_plain_batch_is_in_seed_order_labelled_by_seed_with_its_marks(ledger: Ledger) -> None:
    """Seed order is the order of the seeds as given (here a list; random ones as drawn), the
    order the jobs are sent in: not the seeds' numbers sorted."""
    spec = BatchSpec(SeedPlan(SeedMode.explicit, values=(30, 10, 20)))
    batch, ids = queue_batch(ledger, stored(ledger), spec)
    ledger.marks.set([ids[1]], Mark.star)
    view = read_batch(ledger, batch.id)
    assert view.order == ids
    assert [view.labels[job] for job in view.order] == [
        "seed 30",
        "seed 10",
        "seed 20",
    ]
    assert view.marks == {ids[1]: Mark.star}
    assert (view.grid, view.pictures, view.errors) == (None, {}, {})


def test_a_grid_batch_places_each_job_and_labels_the_edges(ledger: Ledger) -> None:
    grid = (GridAxis("1.width", (32, 48)), GridAxis("2.strength", (0.25, 0.75)))
    batch, ids = queue_batch(ledger, stored(ledger), BatchSpec(SeedPlan(count=1), grid=grid))
    view = read_batch(ledger, batch.id)
    assert view.grid is not None
    assert len(view.grid.columns) == 2
    assert len(view.grid.rows) == 2
    assert "32" in view.grid.columns[0]
    assert "48" in view.grid.columns[1]
    assert sorted(view.grid.places.values()) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert set(view.grid.places) == set(ids)


def test_a_three_axis_batch_puts_each_job_on_its_page(ledger: Ledger) -> None:
    from tests.core.pictures.test_grid_pages import RENDERS, THREE_AXES, grid_jobs

    batch, ids = grid_jobs(ledger, THREE_AXES)
    view = read_batch(ledger, batch)
    assert view.grid is not None
    assert view.grid.pages == ["Load Image · image render_a", "Load Image · image render_b"]
    assert view.grid.page_names == ["Load Image · image"]
    for job_id in ids:
        params = ledger.job(job_id).params
        page = RENDERS.index(params["10.image"])
        assert view.grid.page_of[job_id] == page
        row, column = view.grid.on_page(page)[job_id]
        assert (params["3.cfg"], params["3.steps"]) == ((4, 7)[column], (10, 20)[row])
    assert set(view.grid.on_page(0)) | set(view.grid.on_page(1)) == set(ids)


def test_a_picture_that_varies_outside_the_grid_is_labelled_by_its_stem(ledger: Ledger) -> None:
    from core.ledger import NewJob
    from tests.core.pictures.test_grid_pages import RENDERS

    ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
    jobs = [NewJob({"1.image": render}) for render in RENDERS]
    batch, _ids = ledger.create_batch("noise", jobs, requester="tester")
    view = read_batch(ledger, batch.id)
    assert [view.labels[job] for job in view.order] == ["image render_a", "image render_b"]


def test_a_retry_smaller_sits_in_its_originals_cell_labelled_by_what_it_made_smaller(
    ledger: Ledger, tmp_path
) -> None:
    from core.batch import queue_smaller
    from tests.core.pictures.test_grid_sheet import grid_batch

    batch, ids = grid_batch(ledger, tmp_path)
    failed = next(job_id for job_id in ids if ledger.job(job_id).state.value == "failed")
    retry = queue_smaller(ledger, failed, shrink=["size"])
    view = read_batch(ledger, batch)
    assert view.grid is not None
    assert view.grid.places[retry] == (1, 2), "row 128, column 0.9: where the failed one was"
    assert failed not in view.grid.places, "the newer job took the failed one's cell"
    assert view.grid.rows == ["64", "128"], "no row for its smaller width"
    assert view.labels[retry] == "smaller: width 96"


def test_an_sdxl_grid_names_its_axes_pages_and_cells_as_the_composer(
    ledger: Ledger, tmp_path
) -> None:
    from tests.core.presets.test_input_names import (
        BASE_PROMPT,
        BASE_SEED,
        REFINER_PROMPT,
        sdxl_grid_batch,
    )

    batch, _ids = sdxl_grid_batch(ledger, tmp_path, seeds=2)
    view = read_batch(ledger, batch)
    assert view.grid is not None
    assert [axis.name for axis in view.grid.axes] == [BASE_PROMPT, REFINER_PROMPT]
    assert BASE_SEED in view.grid.page_names
    assert all(BASE_SEED in page for page in view.grid.pages), view.grid.pages
    plain = read_batch(ledger, queue_batch(ledger, "sdxl", BatchSpec(SeedPlan(count=2)))[0].id)
    # a cell's narrow label: the input by itself, with the composer's hint where two share it
    assert sorted(plain.labels.values()) == [
        "noise_seed (base) 0 · noise_seed (refiner) 0",
        "noise_seed (base) 1 · noise_seed (refiner) 1",
    ]


def test_a_plain_batchs_retry_sits_after_its_original_saying_what_it_made_smaller(
    ledger: Ledger,
) -> None:
    """The other cells keep their labels: the retry's smaller width is no value of the batch."""
    from core.batch import queue_smaller
    from core.job_state import Reason

    seeds = SeedPlan(SeedMode.explicit, values=(30, 10))
    batch, ids = queue_batch(ledger, stored(ledger), BatchSpec(seeds, overrides={"1.width": 128}))
    ledger.submit_attempt(ids[0], "p0", "http://x", "wf")
    ledger.observe_running("p0")
    ledger.observe_failed("p0", Reason.oom)
    retry = queue_smaller(ledger, ids[0], shrink=["size"])
    view = read_batch(ledger, batch.id)
    assert view.order == [ids[0], retry, ids[1]]
    assert [view.labels[job] for job in view.order] == [
        "seed 30",
        "seed 30 · smaller: width 96",
        "seed 10",
    ]
    assert view.retried == {retry: ids[0]}

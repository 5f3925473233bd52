"""Tests for core.batch.compose: the jobs of a batch, seeds crossed with a grid, each distinct."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.batch import (
    BatchSpec,
    GridAxis,
    SeedMode,
    SeedPlan,
    build_workflow,
    compose,
    workflow_hash,
)
from core.batch.compose import MAX_AXES
from core.errors import BatchTooLarge, CompositionError
from core.presets import Preset, load_preset


def test_grid_crossed_with_seeds(one_seed: Preset) -> None:
    grid = (GridAxis("3.cfg", (4, 7)), GridAxis("3.steps", ("10", "20", "30")))
    jobs = compose(one_seed, BatchSpec(SeedPlan(count=2), grid=grid, priority=5))
    assert len(jobs) == 12
    assert jobs[0].grid == (0, 0)
    assert jobs[5].grid == (1, 2)
    assert jobs[5].params == {"3.cfg": 7.0, "3.steps": 30, "10.value": 0}
    assert jobs[6].params["10.value"] == 1
    assert {j.priority for j in jobs} == {5}
    assert [j.index for j in jobs] == list(range(12))
    kept = compose(one_seed, BatchSpec(SeedPlan(SeedMode.keep), grid=grid[:1]))
    assert [j.params for j in kept] == [{"3.cfg": 4.0}, {"3.cfg": 7.0}]


CHECKPOINTS = ("a.safetensors", "b.safetensors")


def test_a_checkpoint_axis_goes_outside_the_other_axis_and_the_seeds(one_seed: Preset) -> None:
    grid = (GridAxis("3.cfg", (4, 7, 9)), GridAxis("4.ckpt_name", CHECKPOINTS))
    jobs = compose(one_seed, BatchSpec(SeedPlan(count=3), grid=grid))
    checkpoints = [job.params["4.ckpt_name"] for job in jobs]
    assert checkpoints == ["a.safetensors"] * 9 + ["b.safetensors"] * 9  # one switch
    assert [j.index for j in jobs] == list(range(18))
    for job in jobs:  # the point still names (X, Y) in the spec's order
        assert job.params["3.cfg"] == (4.0, 7.0, 9.0)[job.grid[0]]
        assert job.params["4.ckpt_name"] == CHECKPOINTS[job.grid[1]]
    first = jobs[:9]  # within a checkpoint, as before: the seed rows, then X
    assert [j.params["10.value"] for j in first] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert [j.grid[0] for j in first[:3]] == [0, 1, 2]
    crossed = {(j.grid, j.params["10.value"]) for j in jobs}
    assert len(crossed) == 18  # every point with every seed, once


def test_a_grid_without_a_model_axis_runs_in_the_sheets_reading_order(one_seed: Preset) -> None:
    grid = (GridAxis("3.cfg", (4, 7)), GridAxis("3.steps", (10, 20)))
    jobs = compose(one_seed, BatchSpec(SeedPlan(count=2), grid=grid))
    # row by row (steps), along each row the columns (cfg): left to right, top to bottom
    assert [j.grid for j in jobs] == [(0, 0), (1, 0), (0, 1), (1, 1)] * 2
    assert [j.params["10.value"] for j in jobs] == [0] * 4 + [1] * 4


def test_three_axes_compose_page_by_page_row_by_row_the_first_varying_fastest(
    one_seed: Preset,
) -> None:
    grid = (
        GridAxis("3.cfg", (4, 7)),
        GridAxis("3.steps", (10, 20, 30)),
        GridAxis("5.width", (512, 640)),
    )
    jobs = compose(one_seed, BatchSpec(SeedPlan(SeedMode.keep), grid=grid))
    assert len(jobs) == 12
    assert [j.grid for j in jobs] == [
        (x, y, z) for z in range(2) for y in range(3) for x in range(2)
    ]
    for job in jobs:
        assert job.params == {
            "3.cfg": (4.0, 7.0)[job.grid[0]],
            "3.steps": (10, 20, 30)[job.grid[1]],
            "5.width": (512, 640)[job.grid[2]],
        }


def test_a_zipped_pair_makes_n_jobs_not_n_squared(one_seed: Preset) -> None:
    grid = (
        GridAxis("3.sampler_name", ("euler", "dpmpp_2m", "ddim")),
        GridAxis("3.steps", (10, 20)),
        GridAxis("3.scheduler", ("normal", "karras", "simple")),
    )
    spec = BatchSpec(SeedPlan(count=2), grid=grid, zips=(("3.sampler_name", "3.scheduler"),))
    jobs = compose(one_seed, spec)
    assert len(jobs) == 3 * 2 * 2  # the pair walks as one axis of 3
    pairs = {(j.params["3.sampler_name"], j.params["3.scheduler"]) for j in jobs}
    assert pairs == {("euler", "normal"), ("dpmpp_2m", "karras"), ("ddim", "simple")}
    for job in jobs:  # zipped axes share their index; the point is in the spec's order
        assert job.grid[0] == job.grid[2]
        assert job.params["3.steps"] == (10, 20)[job.grid[1]]
    # the seed rows outside the non-model axes; the pair (placed at its first axis) fastest
    assert [(j.params["10.value"], j.grid[:2]) for j in jobs[:6]] == [
        (0, (i, s)) for s in range(2) for i in range(3)
    ]


def test_zipped_axes_of_different_lengths_are_refused_naming_them(one_seed: Preset) -> None:
    grid = (GridAxis("3.cfg", (4, 7, 9)), GridAxis("3.steps", (10, 20)))
    with pytest.raises(
        CompositionError,
        match=r"zipped axes need the same number of values: 3\.cfg has 3, 3\.steps has 2",
    ):
        compose(one_seed, BatchSpec(grid=grid, zips=(("3.cfg", "3.steps"),)))
    with pytest.raises(CompositionError, match=r"3\.denoise is zipped but is not an axis"):
        compose(one_seed, BatchSpec(grid=grid, zips=(("3.cfg", "3.denoise"),)))
    with pytest.raises(CompositionError, match=r"3\.cfg is zipped twice"):
        compose(one_seed, BatchSpec(grid=grid, zips=(("3.cfg", "3.cfg"),)))
    with pytest.raises(CompositionError, match=r"two axes or more"):
        compose(one_seed, BatchSpec(grid=grid, zips=(("3.cfg",),)))


def test_a_zip_with_a_model_axis_goes_outermost(one_seed: Preset) -> None:
    grid = (
        GridAxis("3.cfg", (4, 7)),
        GridAxis("4.ckpt_name", CHECKPOINTS),
        GridAxis("3.steps", (10, 20)),
    )
    spec = BatchSpec(SeedPlan(count=2), grid=grid, zips=(("3.steps", "4.ckpt_name"),))
    jobs = compose(one_seed, spec)
    assert len(jobs) == 2 * 2 * 2
    assert [j.params["4.ckpt_name"] for j in jobs] == [CHECKPOINTS[0]] * 4 + [CHECKPOINTS[1]] * 4
    assert {(j.params["4.ckpt_name"], j.params["3.steps"]) for j in jobs} == {
        (CHECKPOINTS[0], 10),
        (CHECKPOINTS[1], 20),
    }


def test_the_count_of_jobs_is_bounded_with_any_number_of_axes(one_seed: Preset) -> None:
    grid = tuple(GridAxis(key, tuple(range(16, 36))) for key in ("3.steps", "5.width", "5.height"))
    spec = BatchSpec(SeedPlan(count=13), grid=grid)  # 20**3 * 13 = 104,000 jobs
    with pytest.raises(BatchTooLarge, match=r"104000 jobs, more than 100000"):
        compose(one_seed, spec)


def test_nothing_varies(one_seed: Preset) -> None:
    with pytest.raises(CompositionError, match=r"identical workflow"):
        compose(one_seed, BatchSpec(SeedPlan(count=3, step=0, start=4)))
    with pytest.raises(CompositionError, match=r"count must be 1"):
        compose(one_seed, BatchSpec(SeedPlan(SeedMode.keep, count=2)))
    with pytest.raises(CompositionError, match=r"identical workflow"):
        compose(one_seed, BatchSpec(SeedPlan(SeedMode.keep), grid=(GridAxis("3.steps", (5, 5)),)))


def test_workflow_without_seed_inputs() -> None:
    png = load_preset(Path(__file__).parents[2] / "data" / "comfyui-output-with-workflow.png")
    with pytest.raises(CompositionError, match=r"no seed input"):
        compose(png, BatchSpec(SeedPlan(count=2)))
    sizes = compose(png, BatchSpec(SeedPlan(SeedMode.keep), grid=(GridAxis("1.width", (64, 128)),)))
    assert len(sizes) == 2


def test_spec_conflicts(one_seed: Preset) -> None:
    with pytest.raises(CompositionError, match=r"swept by the grid"):
        compose(one_seed, BatchSpec(overrides=("3.steps=4",), grid=(GridAxis("3.steps", (1, 2)),)))
    with pytest.raises(CompositionError, match=r"cannot be overridden"):
        compose(one_seed, BatchSpec(overrides=("10.value=4",)))
    with pytest.raises(CompositionError, match=r"two grid axes sweep 3\.steps"):
        compose(one_seed, BatchSpec(grid=(GridAxis("3.steps", (1,)),) * 3))
    many = tuple(GridAxis(f"3.steps{i}", (1,)) for i in range(MAX_AXES + 1))
    with pytest.raises(CompositionError, match=rf"at most {MAX_AXES} axes, not {MAX_AXES + 1}"):
        compose(one_seed, BatchSpec(grid=many))
    with pytest.raises(CompositionError, match=r"has no values"):
        compose(one_seed, BatchSpec(grid=(GridAxis("3.steps", ()),)))
    with pytest.raises(CompositionError, match=r"outside"):
        compose(one_seed, BatchSpec(SeedPlan(start=-1)))


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(1, 12),
    start=st.integers(0, 1000),
    step=st.integers(-3, 3),
    mode=st.sampled_from(list(SeedMode)),
    per_input=st.booleans(),
    cfgs=st.lists(st.sampled_from([1.0, 2.0, 3.0]), max_size=3),
)
def test_compose_never_sends_the_same_workflow_twice(
    preset: Preset,
    count: int,
    start: int,
    step: int,
    mode: SeedMode,
    per_input: bool,
    cfgs: list[float],
) -> None:
    plan = SeedPlan(mode, count, start, step, tuple(range(start, start + count)), 3, per_input)
    grid = (GridAxis("3.cfg", tuple(cfgs)),) if cfgs else ()
    try:
        jobs = compose(preset, BatchSpec(plan, grid=grid))
    except CompositionError:
        return
    hashes = [workflow_hash(build_workflow(preset.api_workflow, j.params)) for j in jobs]
    assert len(set(hashes)) == len(hashes)
    assert hashes == [j.workflow_hash for j in jobs]

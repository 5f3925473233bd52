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
from core.errors import CompositionError
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


def test_a_grid_without_a_model_axis_keeps_its_order(one_seed: Preset) -> None:
    grid = (GridAxis("3.cfg", (4, 7)), GridAxis("3.steps", (10, 20)))
    jobs = compose(one_seed, BatchSpec(SeedPlan(count=2), grid=grid))
    assert [j.grid for j in jobs] == [(0, 0), (0, 1), (1, 0), (1, 1)] * 2
    assert [j.params["10.value"] for j in jobs] == [0] * 4 + [1] * 4


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
    with pytest.raises(CompositionError, match=r"at most 2 axes"):
        compose(one_seed, BatchSpec(grid=(GridAxis("3.steps", (1,)),) * 3))
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

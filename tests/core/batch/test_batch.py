"""Tests for core.batch: composing jobs, rebuilding workflows, retry smaller."""

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
    default_shrink,
    retry_smaller,
    shrinkable,
    workflow_hash,
)
from core.errors import CompositionError
from core.presets import Preset, load_preset

PRESETS = Path(__file__).parents[2] / "data" / "presets"


@pytest.fixture(scope="module")
def preset() -> Preset:
    return load_preset(PRESETS / "api_primitive_seed.json")


@pytest.fixture(scope="module")
def one_seed() -> Preset:
    return load_preset(PRESETS / "api_primitive_seed.json", seed_inputs=["3.seed"])


def test_sequence_of_seeds(one_seed: Preset) -> None:
    jobs = compose(one_seed, BatchSpec(SeedPlan(count=3, start=100, step=5), requester="ann"))
    assert [job.params for job in jobs] == [{"10.value": s} for s in (100, 105, 110)]
    assert [job.requester for job in jobs] == ["ann"] * 3
    workflow = build_workflow(one_seed.api_workflow, jobs[1].params)
    assert workflow["10"]["inputs"]["value"] == 105
    assert workflow_hash(workflow) == jobs[1].workflow_hash
    assert one_seed.api_workflow["10"]["inputs"]["value"] == 1234  # the preset is untouched


def test_one_value_for_all_or_one_per_input(preset: Preset) -> None:
    same = compose(preset, BatchSpec(SeedPlan(count=2, start=1)))
    assert same[1].params == {"10.value": 2, "11.seed": 2}
    each = compose(preset, BatchSpec(SeedPlan(count=2, start=1, per_input=True)))
    assert [j.params for j in each] == [
        {"10.value": 1, "11.seed": 2},
        {"10.value": 3, "11.seed": 4},
    ]


def test_explicit_list(one_seed: Preset) -> None:
    jobs = compose(one_seed, BatchSpec(SeedPlan(SeedMode.explicit, values=(7, 3, 9))))
    assert [j.seeds["10.value"] for j in jobs] == [7, 3, 9]
    with pytest.raises(CompositionError, match=r"repeats 3"):
        compose(one_seed, BatchSpec(SeedPlan(SeedMode.explicit, values=(3, 1, 3))))


def test_random_seeds_recorded_and_in_range(preset: Preset) -> None:
    spec = BatchSpec(SeedPlan(SeedMode.random, count=20, rng_seed=42, per_input=True))
    jobs = compose(preset, spec)
    assert jobs == compose(preset, spec)  # seedable, so reproducible
    assert all(0 <= j.params["10.value"] <= 2**63 - 1 for j in jobs)
    assert any(j.params["11.seed"] > 2**63 for j in jobs)  # sampler seeds use the full range
    shared = compose(preset, BatchSpec(SeedPlan(SeedMode.random, count=5, rng_seed=1)))
    assert all(j.params["10.value"] == j.params["11.seed"] <= 2**63 - 1 for j in shared)


def test_overrides_are_parsed_and_checked(one_seed: Preset) -> None:
    spec = BatchSpec(SeedPlan(count=2), overrides=("3.steps=30", "3.cfg=4.5", "6.text=a cat"))
    jobs = compose(one_seed, spec)
    assert jobs[0].params == {"3.steps": 30, "3.cfg": 4.5, "6.text": "a cat", "10.value": 0}
    mapping = compose(one_seed, BatchSpec(overrides={"3.sampler_name": "heun"}))
    assert mapping[0].params["3.sampler_name"] == "heun"


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("3.steps=abc", r"node 3, input 'steps': 'abc' is not an integer"),
        ("3.steps=0", r"node 3, input 'steps': 0 is outside 1..10000"),
        ("3.sampler_name=nope", r"node 3, input 'sampler_name': 'nope' is not one of"),
        ("3.cfg=inf", "not a finite number"),
        ("99.steps=1", "node 99 is not in the workflow"),
        ("3.nope=1", "node 3 has no input 'nope'"),
        ("3.model=1", "fed by a link"),
        ("steps=3", "not of the form NODE_ID.INPUT=value"),
        ("3.steps", "not of the form"),
    ],
)
def test_bad_overrides(one_seed: Preset, override: str, message: str) -> None:
    with pytest.raises(CompositionError, match=message):
        compose(one_seed, BatchSpec(overrides=(override,)))


def test_override_of_unknown_node_uses_the_literal_type() -> None:
    api = {"1": {"class_type": "Custom", "inputs": {"flag": True, "seed": 1}}}
    from core.presets import preset_from_api

    custom = preset_from_api(api, Path("custom.json"))
    jobs = compose(custom, BatchSpec(overrides=("1.flag=no",)))
    assert jobs[0].params["1.flag"] is False


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


def test_a_colour_input_takes_hex_as_the_composer_shows_it() -> None:
    png = load_preset(Path(__file__).parents[2] / "data" / "comfyui-output-with-workflow.png")
    keep = SeedPlan(SeedMode.keep)
    jobs = compose(png, BatchSpec(keep, overrides=("1.color=#FF8000",)))
    assert jobs[0].params["1.color"] == 0xFF8000
    grid = compose(png, BatchSpec(keep, grid=(GridAxis("1.color", ("#000000", 255)),)))
    assert [job.params["1.color"] for job in grid] == [0, 255]
    with pytest.raises(CompositionError, match=r"input 'color': '#GG0000' is not a colour"):
        compose(png, BatchSpec(keep, overrides=("1.color=#GG0000",)))
    with pytest.raises(CompositionError, match=r"input 'width': '#40' is not an integer"):
        compose(png, BatchSpec(keep, overrides=("1.width=#40",)))


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


def test_build_workflow_wraps_lists_and_rejects_unknown_nodes(one_seed: Preset) -> None:
    workflow = build_workflow(one_seed.api_workflow, {"6.text": ["a", "b"]})
    assert workflow["6"]["inputs"]["text"] == {"__value__": ["a", "b"]}
    with pytest.raises(CompositionError, match=r"node 42"):
        build_workflow(one_seed.api_workflow, {"42.x": 1})


def test_retry_smaller(one_seed: Preset) -> None:
    params = retry_smaller(one_seed.api_workflow, {"10.value": 9}, shrink=["size"])
    assert params == {"10.value": 9, "5.width": 768, "5.height": 576}
    again = retry_smaller(one_seed.api_workflow, params, factor=0.5, shrink=["size"])
    assert (again["5.width"], again["5.height"]) == (384, 288)


def test_retry_smaller_reduces_the_batch_size_first(one_seed: Preset) -> None:
    """Several images at once are what fills the memory: the default shrinks the batch."""
    found = shrinkable(one_seed.api_workflow, {})
    assert found == {"size": {"5.width": 1024, "5.height": 768}, "batch size": {"5.batch_size": 2}}
    assert default_shrink(found) == "batch size"
    assert retry_smaller(one_seed.api_workflow, {}) == {"5.batch_size": 1}
    both = retry_smaller(one_seed.api_workflow, {}, shrink=["size", "batch size"])
    assert both == {"5.width": 768, "5.height": 576, "5.batch_size": 1}
    assert default_shrink(shrinkable(one_seed.api_workflow, both)) == "size"
    with pytest.raises(CompositionError, match="no batch size left"):
        retry_smaller(one_seed.api_workflow, both, shrink=["batch size"])
    with pytest.raises(CompositionError, match="cannot shrink colour"):
        retry_smaller(one_seed.api_workflow, {}, shrink=["colour"])


def test_retry_smaller_falls_back_to_batch_size() -> None:
    api = {
        "1": {
            "class_type": "EmptyLatentImage",
            "inputs": {"width": 64, "height": 64, "batch_size": 4},
        }
    }
    assert retry_smaller(api, {}) == {"1.batch_size": 3}
    with pytest.raises(CompositionError, match=r"nothing|no width"):
        retry_smaller(api, {"1.batch_size": 1})
    with pytest.raises(CompositionError, match=r"factor"):
        retry_smaller(api, {}, factor=1.5)


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(65, 16384),
    factor=st.floats(0.05, 0.95),
)
def test_retry_smaller_gives_multiples_of_8(size: int, factor: float) -> None:
    api = {"1": {"class_type": "X", "inputs": {"width": size, "height": size}}}
    params = retry_smaller(api, {}, factor)
    assert params["1.width"] % 8 == 0
    assert 64 <= params["1.width"] < size


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

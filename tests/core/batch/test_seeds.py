"""Tests for core.batch.seeds: the seeds of each job, counted, listed or drawn."""

from __future__ import annotations

import pytest

from core.batch import (
    BatchSpec,
    SeedMode,
    SeedPlan,
    build_workflow,
    compose,
    workflow_hash,
)
from core.errors import CompositionError
from core.presets import Preset


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

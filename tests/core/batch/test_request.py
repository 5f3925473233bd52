"""Tests for core.batch.request: which seed options go together, named as each caller names them."""

from __future__ import annotations

import pytest

from core.batch import GridAxis, SeedMode, SeedPlan
from core.batch.request import BatchRequest
from core.errors import InputError


def test_no_seed_option_keeps_the_workflow_seeds_and_a_count_alone_counts_from_0() -> None:
    assert BatchRequest().seed_plan() == SeedPlan(SeedMode.keep)
    assert BatchRequest(count=3).seed_plan() == SeedPlan(SeedMode.sequence, count=3)
    assert BatchRequest(seed_start=5, seed_step=0).seed_plan() == SeedPlan(start=5, step=0)
    assert BatchRequest(seeds=(4, 2)).seed_plan() == SeedPlan(
        SeedMode.explicit, count=2, values=(4, 2)
    )
    assert BatchRequest(count=2, random_seeds=True).seed_plan().mode is SeedMode.random


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (BatchRequest(seeds=(1,), random_seeds=True), "not seeds and random_seeds"),
        (BatchRequest(seed_start=1, seeds=(1,)), "not seed_start/seed_step and seeds"),
        (BatchRequest(count=0), "count must be at least 1"),
        (BatchRequest(count=2, seeds=(1, 2)), "count does not go with seeds"),
        (BatchRequest(grid=(GridAxis("1.a", (1,)),) * 17), "grid has at most 16 axes, not 17"),
        (BatchRequest(grid=(GridAxis("1.a", (1,)),), zips=(("1.a",),)), "zip: a group zips two"),
        (
            BatchRequest(grid=(GridAxis("1.a", (1,)),), zips=(("1.a", "1.b"),)),
            "zip: 1.b is not an axis of grid",
        ),
    ],
)
def test_options_that_do_not_go_together_are_refused(request_: BatchRequest, message: str) -> None:
    with pytest.raises(InputError, match=message):
        request_.spec()


def test_each_caller_names_its_own_fields() -> None:
    with pytest.raises(InputError, match="--count must be at least 1"):
        BatchRequest(count=0).spec(lambda name: "--" + name.replace("_", "-"))


def test_any_number_of_axes_zips_and_wildcards_reach_the_spec() -> None:
    grid = tuple(GridAxis(f"1.a{i}", (1, 2)) for i in range(5))
    asked = BatchRequest(grid=grid, zips=(("1.a0", "1.a3"),), wildcards={"2.text": "all"})
    spec = asked.spec()
    assert (spec.grid, spec.zips, dict(spec.wildcards)) == (
        grid,
        (("1.a0", "1.a3"),),
        {"2.text": "all"},
    )

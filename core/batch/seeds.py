"""The seed values of each job of a batch, from a count, an explicit list or a random source."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from core.batch.spec import SeedMode, SeedPlan
from core.errors import BatchTooLarge, CompositionError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.presets.model import SeedInput

MAX_JOBS = 100_000
MAX_DRAWS = 1000


def seed_rows(plan: SeedPlan, inputs: Sequence[SeedInput]) -> list[dict[str, int]]:
    """One mapping of `NODE_ID.INPUT` to seed per job (a single empty row for `keep`)."""
    if plan.mode is SeedMode.keep:
        if plan.count != 1:
            raise CompositionError("seeds are kept as they are, so the count must be 1")
        return [{}]
    if not inputs:
        raise CompositionError("the workflow has no seed input: name one with --seed-input")
    width = len(inputs) if plan.per_input else 1
    if plan.mode is SeedMode.explicit:
        columns = _from_list(plan, width)
    elif plan.mode is SeedMode.random:
        columns = _random(plan, inputs, width)
    else:
        columns = _counted(plan, width)
    rows = [_row(inputs, values) for values in columns]
    _check_ranges(rows, inputs)
    return rows


def _row(inputs: Sequence[SeedInput], values: Sequence[int]) -> dict[str, int]:
    if len(values) == 1:
        return {str(seed.ref): values[0] for seed in inputs}
    return {str(seed.ref): value for seed, value in zip(inputs, values, strict=True)}


def _counted(plan: SeedPlan, width: int) -> list[list[int]]:
    _check_count(plan.count)
    return [
        [plan.start + (job * width + k) * plan.step for k in range(width)]
        for job in range(plan.count)
    ]


def _from_list(plan: SeedPlan, width: int) -> list[list[int]]:
    values = list(plan.values)
    if not values:
        raise CompositionError("the seed list is empty")
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise CompositionError(f"the seed list repeats {', '.join(map(str, repeated))}")
    if len(values) % width:
        raise CompositionError(f"one seed per input needs a multiple of {width} seeds")
    _check_count(len(values) // width)
    return [values[i : i + width] for i in range(0, len(values), width)]


def _random(plan: SeedPlan, inputs: Sequence[SeedInput], width: int) -> list[list[int]]:
    _check_count(plan.count)
    rng = random.Random(plan.rng_seed)
    low = max(s.minimum for s in inputs) if width == 1 else 0
    high = min(s.maximum for s in inputs) if width == 1 else 0
    rows: list[list[int]] = []
    seen: set[tuple[int, ...]] = set()
    for _ in range(plan.count * MAX_DRAWS):
        if len(rows) == plan.count:
            return rows
        row = [rng.randint(low, high)] if width == 1 else [_draw(rng, s) for s in inputs]
        if tuple(row) not in seen:
            seen.add(tuple(row))
            rows.append(row)
    raise CompositionError(f"cannot draw {plan.count} different seeds within the seed range")


def _draw(rng: random.Random, seed: SeedInput) -> int:
    return rng.randint(seed.minimum, seed.maximum)


def _check_count(count: int) -> None:
    """A count below 1 is a bad request; above MAX_JOBS, a batch larger than a limit (413)."""
    if count < 1:
        raise CompositionError(f"the number of seeds must be between 1 and {MAX_JOBS}")
    if count > MAX_JOBS:
        raise BatchTooLarge(f"a batch of {count} seeds is more than {MAX_JOBS} jobs: split it")


def _check_ranges(rows: list[dict[str, int]], inputs: Sequence[SeedInput]) -> None:
    for seed in inputs:
        for row in rows:
            value = row[str(seed.ref)]
            if not seed.minimum <= value <= seed.maximum:
                raise CompositionError(
                    f"seed {value} for node {seed.ref.node_id}, input {seed.ref.input!r} "
                    f"is outside {seed.minimum}..{seed.maximum}"
                )

"""Turning a preset and a batch spec into job specs."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from core.batch.seeds import MAX_JOBS, seed_rows
from core.batch.spec import BatchSpec, GridAxis, JobSpec
from core.batch.values import checked_value, parse_assignment
from core.batch.wildcard_spec import RandomTexts, expand_spec
from core.batch.workflow import build_workflow, workflow_hash
from core.catalogue import Catalogue
from core.errors import BatchTooLarge, CompositionError
from core.placement.grid_order import NO_MODEL, switch_cost
from core.presets.model import InputRef, Preset

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["MAX_AXES", "compose", "expand_spec", "parse_overrides"]

PRIORITY_LIMIT = 2**63  # the ledger stores a priority as a signed 64-bit SQLite integer

MAX_AXES = 16  # the count of jobs is bounded by MAX_JOBS; this bounds the grid's bookkeeping

Axes = list[tuple[str, list[Any]]]  # (NODE_ID.INPUT, checked values), in the spec's order
Dimension = tuple[int, ...]  # the axes (indices) that walk together: one, or a zip group


def compose(
    preset: Preset,
    spec: BatchSpec,
    catalogue: Catalogue | None = None,
    wildcards_folder: Path | None = None,
) -> list[JobSpec]:
    """The jobs of a batch: the seed rows crossed with the grid (a zip group walking as one
    axis), overrides on every job, wildcards resolved (`core.batch.wildcard_spec`: "all"
    inputs made axes, the others chosen by each job's seed), in the order that switches
    models least (`_job_order`).

    Raises:
        CompositionError: for a bad override or grid value (naming node and input), zipped
            axes of different lengths, a wildcard that cannot be expanded, when two jobs would
            send the identical workflow, or a priority the ledger cannot store.
    """
    if not -PRIORITY_LIMIT <= spec.priority < PRIORITY_LIMIT:
        raise CompositionError(
            f"priority must be from {-PRIORITY_LIMIT} to {PRIORITY_LIMIT - 1}, not {spec.priority}"
        )
    cat = catalogue or Catalogue.bundled()
    api = preset.api_workflow
    spec = expand_spec(preset, spec, cat, wildcards_folder)
    overrides = parse_overrides(api, cat, spec.overrides)
    axes = _grid_axes(api, cat, spec.grid)
    dimensions = _dimensions(axes, spec.zips)
    rows = seed_rows(spec.seeds, preset.seed_inputs)
    count = len(rows) * math.prod(len(axes[d[0]][1]) for d in dimensions)  # before listing
    if count > MAX_JOBS:
        raise BatchTooLarge(f"the batch would have {count} jobs, more than {MAX_JOBS}: split it")
    _check_disjoint(overrides, axes, rows[0])
    texts = RandomTexts(preset, spec, cat, wildcards_folder)
    jobs = [
        _job(preset, spec, index, row, axes, point, texts, overrides)
        for index, (row, point) in enumerate(_job_order(api, axes, dimensions, rows))
    ]
    _check_distinct(jobs)
    return jobs


def _dimensions(axes: Axes, zips: tuple[tuple[str, ...], ...]) -> list[Dimension]:
    """The grid's dimensions in the spec's order: each zip group one (where its first axis
    is), each other axis one; a group's axes must have one length."""
    index = {key: i for i, (key, _) in enumerate(axes)}
    grouped: dict[int, Dimension] = {}
    for group in zips:
        keys = [str(_ref(key)) for key in group]
        if len(keys) < 2:
            raise CompositionError(f"a zip group needs two axes or more, not {len(keys)}")
        for key in keys:
            if key not in index:
                raise CompositionError(f"{key} is zipped but is not an axis of the grid")
            if index[key] in grouped or keys.count(key) > 1:
                raise CompositionError(f"{key} is zipped twice")
        lengths = {len(axes[index[key]][1]) for key in keys}
        if len(lengths) > 1:
            said = ", ".join(f"{key} has {len(axes[index[key]][1])}" for key in keys)
            raise CompositionError(f"zipped axes need the same number of values: {said}")
        dimension = tuple(index[key] for key in keys)
        grouped |= dict.fromkeys(dimension, dimension)
    dimensions: list[Dimension] = []
    for i in range(len(axes)):
        dimension = grouped.get(i, (i,))
        if min(dimension) == i:
            dimensions.append(dimension)
    return dimensions


def _job_order(
    api: Mapping[str, Any], axes: Axes, dimensions: list[Dimension], rows: list[dict[str, int]]
) -> Iterator[tuple[dict[str, int], tuple[int, ...]]]:
    """Each job's seed row and grid point (value indices in the spec's axis order), in the
    order that switches models least: the dimensions that sweep a model outermost, costliest
    first (`core.placement.grid_order`), then the seed rows, then the other dimensions in the
    order the sheet reads them (`core.pictures.sheet_order`): the last axis (pages) slowest,
    then the rows, the first axis (columns) fastest, so jobs run, and their places in line
    read, left to right and top to bottom.

    A server runs a 2-checkpoint grid's jobs of one checkpoint one after another, whatever the
    seeds; which value is X or Y does not change, only the order the jobs are queued in.
    """
    costs = [min(switch_cost(*axes[i], api) for i in d) for d in dimensions]
    order = sorted(range(len(dimensions)), key=lambda d: costs[d])  # stable: the spec's order
    outer = [dimensions[d] for d in order if costs[d] != NO_MODEL]
    # The others as the sheet reads them: the last (pages) slowest, the first (columns) fastest.
    inner = [dimensions[d] for d in reversed(order) if costs[d] == NO_MODEL]

    def ranges(chosen: list[Dimension]) -> list[range]:
        return [range(len(axes[d[0]][1])) for d in chosen]

    for outside in itertools.product(*ranges(outer)):
        for row in rows:
            for inside in itertools.product(*ranges(inner)):
                at = {i: v for d, v in zip(outer + inner, outside + inside, strict=True) for i in d}
                yield row, tuple(at[i] for i in range(len(axes)))


def parse_overrides(
    api: Mapping[str, Any], catalogue: Catalogue, overrides: tuple[str, ...] | Mapping[str, Any]
) -> dict[str, Any]:
    """`NODE_ID.INPUT=value` strings (or a mapping) as checked values keyed `NODE_ID.INPUT`."""
    if isinstance(overrides, Mapping):
        pairs = [(_ref(key), value) for key, value in overrides.items()]
    else:
        pairs = [parse_assignment(text) for text in overrides]
    return {str(ref): checked_value(api, catalogue, ref, value) for ref, value in pairs}


def _grid_axes(api: Mapping[str, Any], catalogue: Catalogue, grid: tuple[GridAxis, ...]) -> Axes:
    if len(grid) > MAX_AXES:
        raise CompositionError(f"a grid has at most {MAX_AXES} axes, not {len(grid)}")
    axes = []
    for axis in grid:
        ref = _ref(axis.input)
        if not axis.values:
            raise CompositionError(f"grid axis {ref} has no values")
        axes.append((str(ref), [checked_value(api, catalogue, ref, v) for v in axis.values]))
    keys = [key for key, _ in axes]
    for key in keys:
        if keys.count(key) > 1:
            raise CompositionError(f"two grid axes sweep {key}")
    return axes


def _job(
    preset: Preset,
    spec: BatchSpec,
    index: int,
    seeds: dict[str, int],
    axes: Axes,
    point: tuple[int, ...],
    texts: RandomTexts,
    overrides: dict[str, Any],
) -> JobSpec:
    grid_values = {key: values[i] for (key, values), i in zip(axes, point, strict=True)}
    params = texts.resolved({**overrides, **grid_values, **seeds})
    workflow = build_workflow(preset.api_workflow, params)
    return JobSpec(
        index=index,
        params=params,
        requester=spec.requester,
        priority=spec.priority,
        workflow_hash=workflow_hash(workflow),
        grid=point,
        seeds=dict(seeds),
    )


def _check_disjoint(overrides: dict[str, Any], axes: Axes, seeds: dict[str, int]) -> None:
    for key, _ in axes:
        if key in overrides or key in seeds:
            raise CompositionError(f"{key} is swept by the grid and also set otherwise")
    for key in overrides:
        if key in seeds:
            raise CompositionError(f"{key} is a seed the batch varies; it cannot be overridden")


def _check_distinct(jobs: list[JobSpec]) -> None:
    seen: dict[str, int] = {}
    for job in jobs:
        if job.workflow_hash in seen:
            raise CompositionError(
                f"jobs {seen[job.workflow_hash] + 1} and {job.index + 1} would send the identical "
                "workflow (ComfyUI would not run the second): vary a seed or a parameter"
            )
        seen[job.workflow_hash] = job.index


def _ref(text: str) -> InputRef:
    try:
        return InputRef.parse(text)
    except ValueError as exc:
        raise CompositionError(str(exc)) from None

"""Turning a preset and a batch spec into job specs."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from typing import Any

from core.batch.seeds import MAX_JOBS, seed_rows
from core.batch.spec import BatchSpec, GridAxis, JobSpec
from core.batch.values import checked_value, parse_assignment
from core.batch.workflow import build_workflow, workflow_hash
from core.catalogue import Catalogue
from core.errors import BatchTooLarge, CompositionError
from core.placement.grid_order import axis_order, model_axes
from core.presets.model import InputRef, Preset

PRIORITY_LIMIT = 2**63  # the ledger stores a priority as a signed 64-bit SQLite integer

MAX_GRID_AXES = 2


def compose(preset: Preset, spec: BatchSpec, catalogue: Catalogue | None = None) -> list[JobSpec]:
    """The jobs of a batch: the seed rows crossed with the grid, overrides on every job, in
    the order that switches models least (`_job_order`).

    Raises:
        CompositionError: for a bad override or grid value (naming node and input), when two
            jobs would send the identical workflow, or a priority the ledger cannot store.
    """
    if not -PRIORITY_LIMIT <= spec.priority < PRIORITY_LIMIT:
        raise CompositionError(
            f"priority must be from {-PRIORITY_LIMIT} to {PRIORITY_LIMIT - 1}, not {spec.priority}"
        )
    cat = catalogue or Catalogue.bundled()
    api = preset.api_workflow
    overrides = parse_overrides(api, cat, spec.overrides)
    axes = _grid_axes(api, cat, spec.grid)
    rows = seed_rows(spec.seeds, preset.seed_inputs)
    count = len(rows) * math.prod(len(values) for _, values in axes)  # before listing them
    if count > MAX_JOBS:
        raise BatchTooLarge(f"the batch would have {count} jobs, more than {MAX_JOBS}: split it")
    _check_disjoint(overrides, axes, rows[0])
    jobs = [
        _job(preset, spec, index, row, axes, point, overrides)
        for index, (row, point) in enumerate(_job_order(api, axes, rows))
    ]
    _check_distinct(jobs)
    return jobs


def _job_order(
    api: Mapping[str, Any], axes: list[tuple[str, list[Any]]], rows: list[dict[str, int]]
) -> Iterator[tuple[dict[str, int], tuple[int, ...]]]:
    """Each job's seed row and grid point (value indices in the spec's axis order), in the
    order that switches models least: the axes that sweep a model outermost, costliest first
    (`core.placement.grid_order`), then the seed rows, then the other axes (X before Y).

    A server runs a 2-checkpoint grid's jobs of one checkpoint one after another, whatever the
    seeds; which value is X or Y does not change, only the order the jobs are queued in.
    """
    models = set(model_axes(axes, api))
    order = axis_order(axes, api)
    outer = [i for i in order if axes[i][0] in models]
    inner = [i for i in order if axes[i][0] not in models]
    for outside in itertools.product(*(range(len(axes[i][1])) for i in outer)):
        for row in rows:
            for inside in itertools.product(*(range(len(axes[i][1])) for i in inner)):
                at = dict(zip(outer, outside, strict=True)) | dict(zip(inner, inside, strict=True))
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


def _grid_axes(
    api: Mapping[str, Any], catalogue: Catalogue, grid: tuple[GridAxis, ...]
) -> list[tuple[str, list[Any]]]:
    if len(grid) > MAX_GRID_AXES:
        raise CompositionError(f"a grid has at most {MAX_GRID_AXES} axes")
    axes = []
    for axis in grid:
        ref = _ref(axis.input)
        if not axis.values:
            raise CompositionError(f"grid axis {ref} has no values")
        axes.append((str(ref), [checked_value(api, catalogue, ref, v) for v in axis.values]))
    if len({key for key, _ in axes}) < len(axes):
        raise CompositionError("the two grid axes sweep the same input")
    return axes


def _job(
    preset: Preset,
    spec: BatchSpec,
    index: int,
    seeds: dict[str, int],
    axes: list[tuple[str, list[Any]]],
    point: tuple[int, ...],
    overrides: dict[str, Any],
) -> JobSpec:
    grid_values = {key: values[i] for (key, values), i in zip(axes, point, strict=True)}
    params = {**overrides, **grid_values, **seeds}
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


def _check_disjoint(
    overrides: dict[str, Any], axes: list[tuple[str, list[Any]]], seeds: dict[str, int]
) -> None:
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

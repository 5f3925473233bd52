"""What a batch asks for (BatchSpec) and what each of its jobs varies (JobSpec)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping


class SeedMode(StrEnum):
    """How a batch chooses seeds."""

    keep = "keep"  # leave the workflow's seeds alone (a grid varies instead)
    sequence = "sequence"  # start, start + step, start + 2*step, ...
    explicit = "explicit"  # an explicit list of seeds
    random = "random"  # drawn within each seed input's range, recorded per job


@dataclass(frozen=True)
class SeedPlan:
    """The seeds of a batch; `per_input` gives each seed input its own value."""

    mode: SeedMode = SeedMode.sequence
    count: int = 1
    start: int = 0
    step: int = 1
    values: tuple[int, ...] = ()
    rng_seed: int | None = None
    per_input: bool = False


@dataclass(frozen=True)
class GridAxis:
    """One parameter (`NODE_ID.INPUT`) swept over a list of values."""

    input: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class BatchSpec:
    """A batch request: seeds, overrides applied to every job, a grid of any number of axes.

    `overrides` holds `NODE_ID.INPUT=value` strings or a mapping of `NODE_ID.INPUT` to values.
    `zips` holds groups of axis inputs that walk together (one axis of the grid each: their
    value lists have one length); `wildcards` says per text input how its wildcards become
    texts: "random" (the default, seeded by the job's seed) or "all" (every text a job: the
    input becomes an axis, `expand_spec`).
    """

    seeds: SeedPlan = field(default_factory=SeedPlan)
    overrides: tuple[str, ...] | Mapping[str, Any] = ()
    grid: tuple[GridAxis, ...] = ()
    zips: tuple[tuple[str, ...], ...] = ()
    wildcards: Mapping[str, str] = field(default_factory=dict)
    requester: str = ""
    priority: int = 0


@dataclass(frozen=True)
class JobSpec:
    """One job of a batch: exactly the values it sets (`NODE_ID.INPUT` keys), and who asked.

    `grid` holds the job's value index on each axis of the spec's grid, in the spec's order
    (zipped axes share theirs).

    `build_workflow(preset.api_workflow, job.params)` rebuilds the workflow it sends, whose
    hash is `workflow_hash`.
    """

    index: int
    params: Mapping[str, Any]
    requester: str
    priority: int
    workflow_hash: str
    grid: tuple[int, ...] = ()
    seeds: Mapping[str, int] = field(default_factory=dict)

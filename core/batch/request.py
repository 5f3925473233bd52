"""A batch as asked for by `batchline queue` or the HTTP API, turned into a `BatchSpec`.

Both ask the same things (a seed count or sequence, a seed list or random seeds, overrides, a
grid of any number of axes, zipped axes, wildcard modes, priority); which of them go together
is checked here once, and each caller names its own fields in the messages (``--seed-start``
on the command line, ``seed_start`` in JSON).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.batch.compose import MAX_AXES
from core.batch.spec import BatchSpec, GridAxis, SeedMode, SeedPlan
from core.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def json_field(name: str) -> str:
    """How the HTTP API names a field in its messages: as it is."""
    return name


@dataclass(frozen=True)
class BatchRequest:
    """What a batch asks for, each field None (or empty) when not given."""

    count: int | None = None
    seed_start: int | None = None
    seed_step: int | None = None
    seeds: tuple[int, ...] | None = None
    random_seeds: bool = False
    seed_inputs: tuple[str, ...] = ()
    overrides: tuple[str, ...] | Mapping[str, Any] = ()
    grid: tuple[GridAxis, ...] = ()
    zips: tuple[tuple[str, ...], ...] = ()
    wildcards: Mapping[str, str] = field(default_factory=dict)
    requester: str = ""
    priority: int = 0

    def spec(self, name: Callable[[str], str] = json_field) -> BatchSpec:
        """The batch spec; ``name`` names a field in the messages.

        Raises:
            InputError: options that do not go together, a count below 1, too many grid
                axes, a zip group naming an input that is no axis.
        """
        if len(self.grid) > MAX_AXES:
            raise InputError(f"{name('grid')} has at most {MAX_AXES} axes, not {len(self.grid)}")
        axes = {axis.input for axis in self.grid}
        for group in self.zips:
            if len(group) < 2:
                raise InputError(f"{name('zip')}: a group zips two axes or more")
            for key in group:
                if key not in axes:
                    raise InputError(f"{name('zip')}: {key} is not an axis of {name('grid')}")
        return BatchSpec(
            seeds=self.seed_plan(name),
            overrides=self.overrides,
            grid=self.grid,
            zips=self.zips,
            wildcards=dict(self.wildcards),
            requester=self.requester,
            priority=self.priority,
        )

    def seed_plan(self, field: Callable[[str], str] = json_field) -> SeedPlan:
        """The seeds asked for; which options go together is checked here, values by the
        composer. Without seed options (and without a count) one job keeps the workflow's
        own seeds; a count alone counts seeds from 0."""
        sequence = self.seed_start is not None or self.seed_step is not None
        modes = [
            (f"{field('seed_start')}/{field('seed_step')}", sequence),
            (field("seeds"), self.seeds is not None),
            (field("random_seeds"), self.random_seeds),
        ]
        chosen = [name for name, on in modes if on]
        if len(chosen) > 1:
            raise InputError(f"choose one way of giving seeds, not {' and '.join(chosen)}")
        if self.count is not None and self.count < 1:
            raise InputError(f"{field('count')} must be at least 1")
        count = self.count or 1
        if self.seeds is not None:
            if self.count is not None:
                raise InputError(
                    f"{field('count')} does not go with {field('seeds')} (the list sets the count)"
                )
            return SeedPlan(SeedMode.explicit, count=len(self.seeds), values=self.seeds)
        if self.random_seeds:
            return SeedPlan(SeedMode.random, count=count)
        if sequence or self.count is not None or self.seed_inputs:
            start = self.seed_start or 0
            step = 1 if self.seed_step is None else self.seed_step
            return SeedPlan(SeedMode.sequence, count=count, start=start, step=step)
        return SeedPlan(SeedMode.keep)

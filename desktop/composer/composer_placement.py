"""Where the batch being composed can run, before it is queued: the composer's per-server
sentence ("127.0.0.1:8189 has everything; 127.0.0.1:8188 lacks sd_xl_refiner_1.0.safetensors")
and its one question when no server can run some of its jobs.

The servers' offers are those the controller stored (``core.controller.placing_said``, as the
command line and the API say it); every server the controller drives is weighed, not the first.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from core.controller.placing_said import BatchPlacement, spec_placement
from desktop.common.questions import confirm

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from core.batch import BatchSpec, GridAxis
    from core.ledger import Ledger
    from core.presets import Preset

# Past this many grid points the sentence is worked out at Queue only, not with every edit.
MAX_POINTS_SAID = 2000


def composed_placement(
    ledger: Ledger,
    preset: Preset,
    spec: BatchSpec,
    seeds: int,
    skip: frozenset[str] = frozenset(),
) -> BatchPlacement:
    """How the servers fit the jobs of ``spec`` (``seeds`` jobs per grid point).

    A job's needs come from the values that name files: the overrides and its grid point, never
    its seed; so each point's values stand for its jobs (counted ``seeds`` times), without
    composing their prompts (which costs a millisecond a job). Axes that walk together make
    one point per value. The inputs of ``skip`` (pictures from the artist's disk, uploaded
    to each server before their job) are left out: a server never lacks them.
    """
    overrides = dict(spec.overrides) if not isinstance(spec.overrides, tuple) else {}
    overrides = {key: value for key, value in overrides.items() if key not in skip}
    params = [
        overrides | {key: value for key, value in point.items() if key not in skip}
        for point in grid_points(spec)
    ]
    placement = spec_placement(ledger, preset.api_workflow, params)
    fit = placement.fit
    jobs = replace(fit, jobs=fit.jobs * seeds, unplaceable=fit.unplaceable * seeds)
    return replace(placement, fit=jobs)


def grid_points(spec: BatchSpec) -> list[dict[str, Any]]:
    """Each point of the grid (``NODE.INPUT -> value``): the product of the axes, those that
    walk together (``spec.zips``) taking their i-th values together."""
    group_of = {name: index for index, group in enumerate(spec.zips) for name in group}
    groups: list[list[GridAxis]] = []
    started: dict[int, list[GridAxis]] = {}
    for axis in spec.grid:
        zipped = group_of.get(axis.input)
        if zipped is not None and zipped in started:
            started[zipped].append(axis)
            continue
        groups.append([axis])
        if zipped is not None:
            started[zipped] = groups[-1]
    walks = [
        [
            dict(zip((a.input for a in group), values, strict=True))
            for values in zip(*(a.values for a in group), strict=False)
        ]
        for group in groups
    ]
    return [
        {key: value for part in point for key, value in part.items()}
        for point in itertools.product(*walks)
    ]


def placement_note(placement: BatchPlacement | None) -> str:
    """The composer's sentence: "" when every server has everything (or nothing is known)."""
    if placement is None or not placement.known:
        return ""
    if all(fit.can_run for fit in placement.fit.fits):
        return ""
    return placement.text()


def confirm_placement(parent: QWidget, placement: BatchPlacement) -> bool:
    """Ask once whether to queue jobs no server can run now (they wait until one can)."""
    fit = placement.fit
    some = (
        "its jobs" if fit.unplaceable == fit.jobs else f"{fit.unplaceable} of its {fit.jobs} jobs"
    )
    text = (
        f"No server can run {some} now:\n\n{placement.text()}\n\n"
        "Queued anyway, they wait until a server that has what they need is connected."
    )
    return confirm(parent, "Missing on the servers", text, warning=True, yes_text="Queue anyway")

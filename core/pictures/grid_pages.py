"""A grid batch read as its axes and pages, as the contact sheet and the exported grid show it.

The axes come from the batch's stored spec: its ``grid`` list (any number of axes) and its
``zips`` (groups of axis inputs that walk together: a group is one axis, titled
"sampler_name + scheduler", its values read "euler · normal"). The first axis is the columns,
the second the rows; every further axis, and the inputs outside the grid that vary from job to
job (the seeds), make pages: one per combination, in the axes' order, titled by its values.
A picture value (a job's input picture) is labelled by its file's stem. An axis is named as
the composer names its input: the node's title ("Positive prompt · text"), never its class.

One grid per batch: a job added to the batch after it was queued ("Retry smaller", the only
way a job joins a batch later) differs from the job it retried only in its sizes and batch
sizes; it takes that job's cell (its smaller width is no new column, no new page). In a cell,
a newer job replaces an older one that failed or was cancelled.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.batch.varied import BatchValues, input_name, short_text, value_order
from core.batch.workflow import SIZE_INPUTS
from core.catalogue import Catalogue
from core.errors import InputError
from core.inputs.picture_ref import picture_label
from core.job_state import JobState
from core.pictures.pictures import recorded_outputs
from core.presets.input_names import names_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from core.ledger import JobRecord, Ledger

ZIP_JOIN = " + "  # between the inputs of a zip group in its title
PART_JOIN = " · "  # between a zip group's values in a label
PAGE_JOIN = ", "  # between the parts of a page's title
SHRUNK_INPUTS = (*SIZE_INPUTS, "batch_size")  # what "Retry smaller" changes in a job
_REPLACEABLE = (JobState.failed, JobState.cancelled)  # a newer job takes such a job's cell


def value_label(value: Any, colour: bool = False, limit: int = 28) -> str:
    """One value as a label says it, cut at ``limit`` characters: a picture by its stem, an
    integer colour input as ``#RRGGBB``, any other as it is sent."""
    stem = picture_label(value)
    if stem is None:
        return short_text(value, colour, limit)
    return stem if len(stem) <= limit else stem[: limit - 1] + "…"


@dataclass(frozen=True)
class Axis:
    """One axis of the grid: one input, or a zip group of inputs walking together."""

    name: str  # what the artist reads: "KSampler · cfg", "KSampler · sampler_name + KSampler ·
    # scheduler" (core.presets.input_names)
    keys: tuple[str, ...]  # the job parameters it sets: ("3.cfg",); a zip group's several
    values: tuple[Any, ...]  # its steps: a value each, or for a zip group a tuple (one per key)
    colours: tuple[bool, ...] = ()  # per key: an integer shown as a colour (#RRGGBB)

    @property
    def key(self) -> str:
        """Its first input (a single axis's only one)."""
        return self.keys[0]

    @property
    def zipped(self) -> bool:
        return len(self.keys) > 1

    @property
    def colour(self) -> bool:
        return any(self.colours)

    def text(self, value: Any, limit: int = 28) -> str:
        """One of its values as an edge says it: ``0.5``; a zip group's ``euler · normal``."""
        if not self.zipped:
            return value_label(value, self._colour(0), limit)
        parts = [value_label(part, self._colour(n), limit) for n, part in enumerate(value)]
        return PART_JOIN.join(parts)

    def label(self, value: Any, limit: int = 28) -> str:
        """One of its values with the input's bare name, as an edge says it under the axis's
        title: ``cfg 7``; a zip group's values alone (its title names the inputs)."""
        text = self.text(value, limit)
        return text if self.zipped else f"{input_name(self.key)} {text}"

    def named_label(self, value: Any, limit: int = 28) -> str:
        """One of its values with the input named in full, as a page's title says it:
        ``KSampler · cfg 7``; a zip group's values alone."""
        text = self.text(value, limit)
        return text if self.zipped else f"{self.name} {text}"

    def index_of(self, params: Mapping[str, Any]) -> int | None:
        """Which of its steps a job with these params is at; None when it is at none."""
        if any(key not in params for key in self.keys):
            return None
        value = params[self.key] if not self.zipped else tuple(params[k] for k in self.keys)
        for i, candidate in enumerate(self.values):
            if candidate == value:
                return i
        return None

    def _colour(self, n: int) -> bool:
        return n < len(self.colours) and self.colours[n]


@dataclass(frozen=True)
class Cell:
    job: JobRecord
    pictures: tuple[str, ...]  # the ones it recorded, when it succeeded


@dataclass
class Sheet:
    """One page of the grid: its title's parts (a value of each further axis, the seed) and
    its cells by (column, row)."""

    parts: tuple[str, ...] = ()
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    file_parts: tuple[str, ...] = ()  # its parts with bare input names ("seed 9"): its file

    @property
    def label(self) -> str:
        """Its title ("" when the grid has one page and nothing to tell it by)."""
        return PAGE_JOIN.join(self.parts)


@dataclass(frozen=True)
class Grid:
    """A grid batch: its axes (columns, rows, then the page axes) and its pages, in order."""

    axes: list[Axis]
    sheets: list[Sheet]
    page_inputs: list[str]  # the varied inputs outside the grid that make pages (the seeds)
    retried: dict[str, JobRecord] = field(default_factory=dict)  # retry job id -> its original
    names: dict[str, str] = field(default_factory=dict)  # each input's name, by its key

    @property
    def page_axes(self) -> list[Axis]:
        return self.axes[2:]

    def page_names(self) -> list[str]:
        """What tells its pages apart: the further axes' titles, then the other inputs."""
        return [axis.name for axis in self.page_axes] + [
            self.names.get(key, key) for key in self.page_inputs
        ]


def sheets(ledger: Ledger, batch_id: str) -> tuple[list[Axis], list[Sheet]]:
    """The batch's axes and its pages (``read_grid``)."""
    grid = read_grid(ledger, batch_id)
    return grid.axes, grid.sheets


def read_grid(ledger: Ledger, batch_id: str) -> Grid:
    """The batch's axes and pages, each job in its cell (one ledger read for the pictures); a
    retry in its original's cell (`retried_jobs`).

    Raises:
        InputError: the batch has no grid.
    """
    batch = ledger.batch(batch_id)
    groups = axis_groups(batch.spec)
    if not groups:
        raise InputError(f"batch {batch_id} has no X/Y grid to export")
    workflow = ledger.workflow(batch.workflow_hash)
    jobs = ledger.jobs(batch=batch_id)
    origins = retried_jobs(jobs, batch.created_at)
    queued = [job for job in jobs if job.id not in origins]  # the batch as it was queued
    catalogue = Catalogue.bundled()
    colours = catalogue.colour_inputs(workflow)
    axis_keys = {key for keys in groups for key in keys}
    page_inputs = _page_inputs(queued, axis_keys)
    names = names_of(sorted(axis_keys | set(page_inputs)), workflow, catalogue)
    axes = [_axis(names, keys, queued, colours) for keys in groups]
    attempts = ledger.attempts_of([job.id for job in jobs])
    found: dict[tuple[Any, ...], tuple[tuple[Any, ...], Sheet]] = {}
    for job in jobs:
        params = origins[job.id].params if job.id in origins else job.params
        place = [axis.index_of(params) for axis in axes]
        if None in place:
            continue
        steps = [int(i or 0) for i in place]
        rest = [params.get(key) for key in page_inputs]
        identity = (tuple(steps[2:]), tuple(json.dumps(v, sort_keys=True) for v in rest))
        if identity not in found:
            parts = [
                axis.named_label(axis.values[i])
                for axis, i in zip(axes[2:], steps[2:], strict=True)
            ]
            told = [(k, v) for k, v in zip(page_inputs, rest, strict=True) if k in job.params]
            files = [
                axis.label(axis.values[i]) for axis, i in zip(axes[2:], steps[2:], strict=True)
            ] + [f"{input_name(key)} {value_label(value)}" for key, value in told]
            parts += [f"{names[key]} {value_label(value)}" for key, value in told]
            order = (tuple(steps[2:]), tuple(value_order(v) for v in rest))
            found[identity] = (order, Sheet(tuple(parts), file_parts=tuple(files)))
        sheet = found[identity][1]
        pictures = tuple(str(path) for path in recorded_outputs(attempts.get(job.id, [])))
        cell = (steps[0], steps[1] if len(steps) > 1 else 0)
        held = sheet.cells.get(cell)
        if held is None or (held.job.state in _REPLACEABLE and _newer(job, held.job)):
            sheet.cells[cell] = Cell(job, pictures)
    pages = [sheet for _order, sheet in sorted(found.values(), key=lambda item: item[0])]
    return Grid(axes, pages, page_inputs, origins, names)


def retried_jobs(jobs: Sequence[JobRecord], queued_at: float) -> dict[str, JobRecord]:
    """Each job added to the batch after it was queued (``queued_at``: "Retry smaller") with
    the job of the batch as queued it retried: the latest earlier job whose params are its
    own but for the sizes and batch sizes (`SHRUNK_INPUTS`); a retry of a retry goes back to
    the first. A job added with no such job is left out (it sits by its own params)."""
    origins: dict[str, JobRecord] = {}
    if all(job.created_at <= queued_at for job in jobs):
        return origins  # nothing added since: most batches, read each time the library meets one
    latest: dict[str, JobRecord] = {}  # params but the shrunk ones -> the latest job with them
    for job in sorted(jobs, key=lambda j: (j.created_at, j.id)):
        identity = _unshrunk(job.params)
        earlier = latest.get(identity)
        if job.created_at > queued_at and earlier is not None:
            origins[job.id] = origins.get(earlier.id, earlier)
        latest[identity] = job
    return origins


def smaller_text(job: JobRecord, original: JobRecord) -> str:
    """What a retry made smaller than its original: "smaller: 768×768", "smaller: batch 2"."""
    changed = {
        input_name(key): value
        for key, value in sorted(job.params.items())
        if input_name(key) in SHRUNK_INPUTS and original.params.get(key) != value
    }
    parts = []
    if "width" in changed and "height" in changed:
        parts.append(f"{changed.pop('width')}×{changed.pop('height')}")
    parts += [f"{'batch' if name == 'batch_size' else name} {v}" for name, v in changed.items()]
    return "smaller: " + " · ".join(str(part) for part in parts) if parts else "smaller"


def _newer(job: JobRecord, than: JobRecord) -> bool:
    return (job.created_at, job.id) > (than.created_at, than.id)


def _unshrunk(params: Mapping[str, Any]) -> str:
    kept = {k: v for k, v in params.items() if input_name(k) not in SHRUNK_INPUTS}
    return json.dumps(kept, sort_keys=True)


def axis_groups(spec: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The axes of a stored batch spec, each as its inputs: one input, or a zip group's (at
    the place of its first input), in the spec's order. Unreadable entries are left out."""
    grid = spec.get("grid") or []
    keys: list[str] = []
    for item in grid if isinstance(grid, list) else []:
        key = item.get("input") if isinstance(item, dict) else None
        if isinstance(key, str) and key and key not in keys:
            keys.append(key)
    group_of: dict[str, tuple[str, ...]] = {}
    zips = spec.get("zips") or []
    for members in zips if isinstance(zips, list) else []:
        if not isinstance(members, list | tuple):
            continue
        group = tuple(dict.fromkeys(k for k in members if k in keys and k not in group_of))
        for key in group:
            group_of[key] = group
    groups: list[tuple[str, ...]] = []
    for key in keys:
        group = group_of.get(key, (key,))
        if group not in groups:
            groups.append(group)
    return groups


def _axis(
    names: Mapping[str, str],
    keys: tuple[str, ...],
    jobs: Sequence[JobRecord],
    colours: frozenset[str],
) -> Axis:
    """An axis of the spec, its values as the jobs got them (typed, in the order queued)."""
    values: list[Any] = []
    for job in jobs:
        if all(key in job.params for key in keys):
            value = job.params[keys[0]] if len(keys) == 1 else tuple(job.params[k] for k in keys)
            if value not in values:
                values.append(value)
    name = ZIP_JOIN.join(names[key] for key in keys)
    return Axis(name, keys, tuple(values), tuple(key in colours for key in keys))


def _page_inputs(jobs: Sequence[JobRecord], axis_keys: set[str]) -> list[str]:
    """The inputs outside the grid whose numbers vary from job to job and make pages: the
    seeds. Any other value that varies (a text a wildcard expanded per seed) follows the seed
    and is left to the cells' labels."""
    varied = BatchValues.of(job.params for job in jobs).varied - axis_keys
    return sorted(key for key in varied if all(_number(job.params.get(key, 0)) for job in jobs))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)

"""What a contact sheet shows of one batch, read from the ledger at once: its jobs in the
sheet's order (`core.pictures.sheet_order`, the viewer's too), their labels, marks and first
pictures, its "Retry smaller" copies, and for a grid batch where each job sits (its page, row
and column). Plain Python (no Qt), so a big batch can be read off the GUI thread."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.batch.batch_title import batch_title
from core.batch.varied import BatchValues, input_name
from core.catalogue import Catalogue
from core.job_state import JobState
from core.ledger.attempt_error import current_errors
from core.pictures.grid_pages import smaller_text, value_label
from core.pictures.pictures import recorded_outputs
from core.pictures.sheet_order import batch_grid, job_order, retries
from core.presets.input_names import name_hints, names_of

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    from core.ledger import BatchRecord, JobRecord, Ledger
    from core.ledger.attempt_error import AttemptError
    from core.ledger.marks import Mark
    from core.pictures.grid_pages import Axis, Grid


_LIMIT = 24  # characters of a value in a cell's label or on the grid's edge
_TIP_LIMIT = 2000  # characters of a value in an edge's tooltip (a long prompt, nearly whole)


@dataclass(frozen=True)
class GridLayout:
    """Where each job of a grid batch sits (its page, row and column), and the labels on the
    edges and of the pages."""

    axes: list[Axis]
    columns: list[str]  # each column's value alone ("dpmpp_2m"): the axis is named once
    rows: list[str]
    places: dict[str, tuple[int, int]]  # job id -> (row, column) on its page
    pages: list[str] = field(default_factory=lambda: [""])  # each page's title, in order
    page_of: dict[str, int] = field(default_factory=dict)  # job id -> its page
    page_names: list[str] = field(default_factory=list)  # what tells the pages apart
    page_inputs: list[str] = field(default_factory=list)  # the inputs outside the grid among them
    smaller: dict[str, str] = field(default_factory=dict)  # a retry's label: "smaller: 768×768"
    column_tips: list[str] = field(default_factory=list)  # each column's axis and value in full
    row_tips: list[str] = field(default_factory=list)

    def on_page(self, page: int) -> dict[str, tuple[int, int]]:
        """The places of the jobs on this page."""
        return {
            job: place for job, place in self.places.items() if self.page_of.get(job, 0) == page
        }


@dataclass
class BatchView:
    """One batch as the sheet shows it (``batch_id`` None: no batch)."""

    batch_id: str | None = None
    jobs: dict[str, JobRecord] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # every job, in the sheet's order
    labels: dict[str, str] = field(default_factory=dict)
    marks: dict[str, Mark] = field(default_factory=dict)
    pictures: dict[str, str | None] = field(default_factory=dict)  # succeeded job -> first
    deleted: set[str] = field(default_factory=set)  # succeeded, its pictures gone since
    errors: dict[str, AttemptError] = field(default_factory=dict)  # failed job -> its error
    grid: GridLayout | None = None
    retried: dict[str, str] = field(default_factory=dict)  # "Retry smaller" copy -> original

    def counted(self) -> list[JobRecord]:
        """The jobs the batch's progress counts: each job as queued, by its latest retry when
        it has one (a retry that succeeded makes its original's failure no failure)."""
        latest: dict[str, JobRecord] = {}
        for job_id, job in self.jobs.items():  # in job order: a retry after its original
            latest[self.retried.get(job_id, job_id)] = job
        return list(latest.values())

    def read_pictures(self, ledger: Ledger, job_ids: list[str], output_dir: Path | None) -> None:
        """The first picture of each of these succeeded jobs (one ledger read for them all)."""
        if not job_ids:
            return
        for job_id, attempts in ledger.attempts_of(job_ids).items():
            paths = recorded_outputs(attempts, output_dir)
            there = [path for path in paths if path.is_file()]
            self.pictures[job_id] = str(there[0]) if there else None
            if paths and not there:
                self.deleted.add(job_id)

    def read_errors(self, ledger: Ledger, jobs: list[JobRecord]) -> None:
        """Why each of these failed jobs failed (one ledger read for them all)."""
        if jobs:
            self.errors.update(current_errors(jobs, ledger.attempts_of([j.id for j in jobs])))


class JobLabels:
    """What each job of one batch is told apart by, as its sheet cell in a list says it
    ("cfg 8 · seed 2"); a retry says its original's values. The batch is read at once, each
    label written when it is first asked for (``get``): the library meets a batch of 100 as
    it scrolls and shows a few of them."""

    def __init__(self, ledger: Ledger, batch_id: str) -> None:
        batch = ledger.batch(batch_id)
        jobs = ledger.jobs(batch=batch_id)
        self._retried = retries(jobs, batch.created_at)
        self._jobs = {job.id: job for job in jobs}
        self._made: dict[str, str] = {}
        self._says = _Says.of(ledger, batch, [j for j in jobs if j.id not in self._retried])

    def get(self, job_id: str) -> str:
        """The job's label; "" for a job not of the batch."""
        job_id = self._retried.get(job_id, job_id)
        found = self._made.get(job_id)
        if found is None:
            job = self._jobs.get(job_id)
            found = self._made[job_id] = self._says.label(job) if job is not None else ""
        return found


def job_captions(ledger: Ledger) -> Callable[[str], str]:
    """A job's caption where its batch is not in view (the compare window): its batch's title
    and its values, "Fox portrait · cfg 8 · seed 2"; each batch read once."""
    labels: dict[str, JobLabels] = {}

    def caption(job_id: str) -> str:
        batch = ledger.batch(ledger.job(job_id).batch)
        if batch.id not in labels:
            labels[batch.id] = JobLabels(ledger, batch.id)
        parts = (batch_title(ledger, batch), labels[batch.id].get(job_id))
        return " · ".join(part for part in parts if part)

    return caption


def _batch_labels(
    ledger: Ledger,
    batch: BatchRecord,
    jobs: list[JobRecord],
    retried: Mapping[str, str],
    leave_out: set[str] | frozenset[str] = frozenset(),
) -> dict[str, str]:
    """The queued jobs' labels (`_Says`); a grid's leave out what its edges say
    (``leave_out``) and its seeds unless they vary."""
    queued = [job for job in jobs if job.id not in retried]  # what varies is what was queued
    says = _Says.of(ledger, batch, queued, leave_out)
    return {job.id: says.label(job) for job in queued}


def read_batch(ledger: Ledger, batch_id: str, output_dir: Path | None = None) -> BatchView:
    """The batch as the sheet shows it (a few reads; in any thread with its own connection)."""
    batch = ledger.batch(batch_id)
    jobs = ledger.jobs(batch=batch_id)
    retried = retries(jobs, batch.created_at)
    labels = _batch_labels(ledger, batch, jobs, retried)
    grid = batch_grid(ledger, batch_id)
    view = BatchView(
        batch_id,
        {job.id: job for job in jobs},
        job_order(jobs, retried, grid),
        labels,
        ledger.marks.in_batch(batch_id),
        retried=retried,
    )
    view.read_pictures(
        ledger, [job.id for job in jobs if job.state is JobState.succeeded], output_dir
    )
    view.read_errors(ledger, [job for job in jobs if job.state is JobState.failed])
    view.grid = _grid_layout(grid) if grid is not None else None
    if view.grid is not None:  # the edges and the page say the rest
        told = {key for axis in view.grid.axes for key in axis.keys} | set(view.grid.page_inputs)
        view.labels = _batch_labels(ledger, batch, jobs, retried, told)
        view.labels.update(view.grid.smaller)  # its size is not what tells it: its cell does
    else:  # a retry beside its original: its label, and what it made smaller
        for retry, original in retried.items():
            parts = (labels.get(original, ""), smaller_text(view.jobs[retry], view.jobs[original]))
            view.labels[retry] = " · ".join(part for part in parts if part)
    return view


def _grid_layout(grid: Grid) -> GridLayout:
    axes = grid.axes
    rows = [axes[1].text(y, _LIMIT) for y in axes[1].values] if len(axes) > 1 else [""]
    row_tips = [_tip(axes[1], y) for y in axes[1].values] if len(axes) > 1 else [""]
    places: dict[str, tuple[int, int]] = {}
    page_of: dict[str, int] = {}
    for page, sheet in enumerate(grid.sheets):
        for (column, row), cell in sheet.cells.items():
            places[cell.job.id] = (row, column)
            page_of[cell.job.id] = page
    columns = [axes[0].text(x, _LIMIT) for x in axes[0].values]
    column_tips = [_tip(axes[0], x) for x in axes[0].values]
    pages = [sheet.label for sheet in grid.sheets] or [""]
    return GridLayout(
        axes,
        columns,
        rows,
        places,
        pages,
        page_of,
        grid.page_names(),
        grid.page_inputs,
        {job: smaller_text(view_job, grid.retried[job]) for job, view_job in _retries(grid)},
        column_tips,
        row_tips,
    )


def _retries(grid: Grid) -> list[tuple[str, JobRecord]]:
    """Each retry on the grid (a cell's job) with its record."""
    return [
        (cell.job.id, cell.job)
        for sheet in grid.sheets
        for cell in sheet.cells.values()
        if cell.job.id in grid.retried
    ]


def _tip(axis: Axis, value: Any) -> str:
    """An edge's tooltip: the axis and the value in full ("Sampler · cfg: 7.5")."""
    return f"{axis.name}: {axis.text(value, _TIP_LIMIT)}"


@dataclass(frozen=True)
class _Says:
    """What a batch's cells say: the inputs that tell its jobs apart (``keys``: those that
    vary, and the seeds unless a grid's edges say them), each by its name in a cell
    (``told``, `_cell_names`), and which are colours."""

    keys: list[str]
    told: Mapping[str, str]
    colours: frozenset[str]

    @classmethod
    def of(
        cls,
        ledger: Ledger,
        batch: BatchRecord,
        queued: list[JobRecord],
        leave_out: set[str] | frozenset[str] = frozenset(),
    ) -> _Says:
        """From the jobs as queued (a grid's leave out what its edges say, ``leave_out``, and
        their seeds unless they vary); the batch's workflow read once, its inputs' full names
        made only for inputs that share a name (by the bundled catalogue)."""
        workflow = ledger.workflow(batch.workflow_hash)
        catalogue = Catalogue.bundled()
        values = BatchValues.of(job.params for job in queued)
        keys = sorted((values.varied if leave_out else values.columns()) - set(leave_out))
        told = _cell_names(keys, lambda some: names_of(some, workflow, catalogue))
        return cls(keys, told, catalogue.colour_inputs(workflow))

    def label(self, job: JobRecord) -> str:
        """ "seed 1234", "cfg 7 · steps (base) 20"."""
        return " · ".join(
            f"{self.told[key]} {_short(job.params[key], key in self.colours)}"
            for key in self.keys
            if key in job.params
        )


def _cell_names(keys: list[str], names: Callable[[list[str]], Mapping[str, str]]) -> dict[str, str]:
    """How a cell's label names each input: by the input alone ("color #3366FF"), so that a
    cell's narrow label keeps the value in sight, with what tells them apart where two inputs
    share it ("noise_seed (base)", "noise_seed (refiner)": `core.presets.input_names`)."""
    twins: dict[str, list[str]] = {}
    for key in keys:
        twins.setdefault(input_name(key), []).append(key)
    shown = {key: input_name(key) for key in keys}
    for name, group in twins.items():
        if len(group) > 1:
            hints = name_hints(group, names(group))
            shown.update({key: f"{name} ({hints[key]})" for key in group})
    return shown


def _short(value: Any, colour: bool) -> str:
    return value_label(value, colour, _LIMIT)

"""An X/Y grid batch as one labelled picture, as SwarmUI's grid generator exports it.

Columns follow the first grid axis, rows the second (one row without it); the axis names and
values are written on the edges. A batch that also varies its seed gives one sheet per seed.
A cell shows the job's first picture, or what became of it (failed, cancelled, waiting).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw, ImageFont, UnidentifiedImageError

from core.batch.varied import input_name, short_text
from core.catalogue import Catalogue
from core.errors import InputError
from core.files import write_new
from core.job_state import JobState
from core.pictures.pictures import recorded_outputs
from core.reason_texts import reason_text

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import JobRecord, Ledger

CELL = 256
LABEL = 32  # height of a column label, width unit of a row label
TITLE = 40
_BACKGROUND, _INK, _FAILED, _MUTED = "#ffffff", "#212529", "#a4262c", "#6c757d"
MAX_PIXELS = 1 << 26  # Pillow's own bomb limit is 89M; a sheet's pictures need far less


@dataclass(frozen=True)
class Axis:
    name: str  # what the artist reads: "KSampler · cfg"
    key: str  # the job parameter: "3.cfg"
    values: tuple[Any, ...]
    colour: bool = False  # an integer shown as a colour: its values read #RRGGBB

    def text(self, value: Any, limit: int = 28) -> str:
        """One of its values as a label says it, cut at ``limit`` characters."""
        return short_text(value, self.colour, limit)


@dataclass(frozen=True)
class Cell:
    job: JobRecord
    pictures: tuple[str, ...]  # the ones it recorded, when it succeeded


@dataclass
class Sheet:
    """One sheet: its label (the seed it shows, if the batch varies seeds) and its cells."""

    label: str
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)


def sheets(ledger: Ledger, batch_id: str) -> tuple[list[Axis], list[Sheet]]:
    """The batch's axes and its sheets.

    Raises:
        InputError: the batch has no grid.
    """
    batch = ledger.batch(batch_id)
    grid = batch.spec.get("grid") or []
    if not isinstance(grid, list) or not grid:
        raise InputError(f"batch {batch_id} has no X/Y grid to export")
    workflow = ledger.workflow(batch.workflow_hash)
    jobs = ledger.jobs(batch=batch_id)
    colours = Catalogue.bundled().colour_inputs(workflow)
    axes = [_axis(workflow, item, jobs, colours) for item in grid[:2] if isinstance(item, dict)]
    found: dict[str, Sheet] = {}
    attempts = ledger.attempts_of([job.id for job in jobs])
    axis_keys = {axis.key for axis in axes}
    for job in jobs:
        place_ = tuple(_index(axis, job.params.get(axis.key)) for axis in axes)
        if None in place_:
            continue
        rest = {k: v for k, v in job.params.items() if k not in axis_keys}
        label = ", ".join(f"{input_name(k)} {v}" for k, v in sorted(rest.items()))
        sheet = found.setdefault(label, Sheet(label))
        column, row = place_[0], place_[1] if len(place_) > 1 else 0
        pictures = tuple(str(path) for path in recorded_outputs(attempts.get(job.id, [])))
        sheet.cells.setdefault((int(column or 0), int(row or 0)), Cell(job, pictures))
    return axes, list(found.values())


def _axis(
    workflow: dict[str, Any], item: dict[str, Any], jobs: list[JobRecord], colours: frozenset[str]
) -> Axis:
    """An axis of the spec, its values as the jobs got them (typed, in the order queued)."""
    key = str(item.get("input", ""))
    node_id, _, name = key.partition(".")
    node = workflow.get(node_id, {})
    title = (node.get("_meta") or {}).get("title") or node.get("class_type") or node_id
    values: list[Any] = []
    for job in jobs:
        if key in job.params and job.params[key] not in values:
            values.append(job.params[key])
    return Axis(f"{title} · {name}", key, tuple(values), key in colours)


def _index(axis: Axis, value: Any) -> int | None:
    for i, candidate in enumerate(axis.values):
        if candidate == value:
            return i
    return None


def render(axes: list[Axis], sheet: Sheet) -> Image.Image:
    """The sheet as one picture: titles, column and row labels, a cell per job."""
    columns = len(axes[0].values)
    rows = len(axes[1].values) if len(axes) > 1 else 1
    left = LABEL * 4 if len(axes) > 1 else 0
    width, height = left + columns * CELL, TITLE + LABEL + rows * CELL
    if width * height > MAX_PIXELS:
        raise InputError(f"the grid is too large to draw as one picture ({columns}×{rows} cells)")
    sheet_image = Image.new("RGB", (width, height), _BACKGROUND)
    draw = ImageDraw.Draw(sheet_image)
    font = ImageFont.load_default(size=16)
    title = f"X: {axes[0].name}" + (f"    Y: {axes[1].name}" if len(axes) > 1 else "")
    if sheet.label:
        title += f"    ({sheet.label})"
    draw.text((8, 10), title, fill=_INK, font=font)
    for c, value in enumerate(axes[0].values):
        draw.text((left + c * CELL + 8, TITLE + 8), axes[0].text(value), fill=_INK, font=font)
    if len(axes) > 1:
        for r, value in enumerate(axes[1].values):
            row_y = TITLE + LABEL + r * CELL + 8
            draw.text((8, row_y), axes[1].text(value), fill=_INK, font=font)
    for (c, r), cell in sheet.cells.items():
        _cell(sheet_image, draw, font, (left + c * CELL, TITLE + LABEL + r * CELL), cell)
    return sheet_image


def _cell(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    at: tuple[int, int],
    cell: Cell,
) -> None:
    job = cell.job
    picture = _first_picture(cell.pictures) if job.state == JobState.succeeded else None
    if picture is not None:
        picture.thumbnail((CELL - 4, CELL - 4))
        image.paste(picture, (at[0] + 2, at[1] + 2))
        return
    draw.rectangle((at[0] + 2, at[1] + 2, at[0] + CELL - 3, at[1] + CELL - 3), fill="#f1f3f5")
    text, colour = _what_became(job)
    draw.text((at[0] + 10, at[1] + CELL // 2 - 8), text, fill=colour, font=font)


def _what_became(job: JobRecord) -> tuple[str, str]:
    if job.state == JobState.failed:
        return f"failed: {reason_text(job.reason) or 'error'}", _FAILED
    if job.state == JobState.succeeded:
        return "picture missing", _FAILED
    return str(job.state), _MUTED


def _first_picture(pictures: tuple[str, ...]) -> Image.Image | None:
    for path in pictures:
        try:
            with Image.open(path) as opened:
                return opened.convert("RGB")
        except (OSError, UnidentifiedImageError, Image.DecompressionBombError):
            continue
    return None


def export(ledger: Ledger, batch_id: str, folder: Path) -> list[Path]:
    """Write the batch's sheets as PNGs into ``folder`` (``<batch>_grid.png``; one per seed
    when it varies: ``<batch>_grid-2.png`` ...), never over an existing file; their paths."""
    axes, found = sheets(ledger, batch_id)
    folder.mkdir(parents=True, exist_ok=True)
    return [
        write_new(folder / f"{batch_id}_grid.png", partial(render(axes, sheet).save, format="PNG"))
        for sheet in found
    ]

"""A grid batch as labelled pictures, as SwarmUI's grid generator exports it: one per page.

Columns follow the first grid axis, rows the second (one row without it); the axis names and
values are written on the edges. Every further axis, and the seed when the batch varies it,
makes pages (`core.pictures.grid_pages`): one picture each, its name carrying the page's
values. A cell shows the job's first picture, or what became of it (failed, cancelled,
waiting).
"""

from __future__ import annotations

import re
from functools import partial
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont, UnidentifiedImageError

from core.errors import InputError
from core.files import write_new
from core.job_state import JobState
from core.pictures.grid_pages import read_grid
from core.reason_texts import reason_text

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import JobRecord, Ledger
    from core.pictures.grid_pages import Axis, Cell, Sheet

CELL = 256
LABEL = 32  # height of a column label, width unit of a row label
TITLE = 40
_BACKGROUND, _INK, _FAILED, _MUTED = "#ffffff", "#212529", "#a4262c", "#6c757d"
MAX_PIXELS = 1 << 26  # Pillow's own bomb limit is 89M; a sheet's pictures need far less

MAX_NAME_PART = 100  # characters of a page's values in its file's name
_UNSAFE = re.compile(r"[^\w.+=-]+")


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
    """Write the batch's pages as PNGs into ``folder``, never over an existing file (a taken
    name gets -2, -3 ...; the same picture again is the file already there); their paths.

    One page is ``<batch>_grid.png``; several are named by their values:
    ``<batch>_grid_steps-20_seed-0.png`` (`page_file_name`).
    """
    grid = read_grid(ledger, batch_id)
    several = len(grid.sheets) > 1
    folder.mkdir(parents=True, exist_ok=True)
    return [  # every page has the same size: one too large to draw is the first, none written
        write_new(
            folder / page_file_name(batch_id, sheet if several else None),
            partial(render(grid.axes, sheet).save, format="PNG"),
        )
        for sheet in grid.sheets
    ]


def page_file_name(batch_id: str, sheet: Sheet | None) -> str:
    """A page's file name: ``<batch>_grid_<its values>.png`` (letters, digits and ``.+=-``,
    the values' parts joined by ``_``); ``<batch>_grid.png`` for no page, or one with no
    values."""
    named = (sheet.file_parts or sheet.parts) if sheet else ()
    parts = [_UNSAFE.sub("-", part).strip("-.") for part in named]
    values = "_".join(part for part in parts if part)[:MAX_NAME_PART].rstrip("-._")
    return f"{batch_id}_grid_{values}.png" if values else f"{batch_id}_grid.png"

"""A grid batch as labelled pictures, as SwarmUI's grid generator exports it: one per page.

Columns follow the first grid axis, rows the second (one row without it); the axis names and
values are written on the edges, long ones wrapped onto more lines rather than cut. Every
further axis, and the seed when the batch varies it, makes pages (`core.pictures.grid_pages`):
one picture each, its name carrying the page's values. A cell shows the job's first picture,
or what became of it in words (failed: out of memory, cancelled, waiting).
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
LABEL = 32  # height of a column label's line, width unit of a row label
TITLE = 40
PAD = 8
LINE = 20  # a line of text in the 16-pixel font
ROW_LABEL_MAX = CELL  # the row labels' column is at most this wide; longer ones wrap
VALUE_LIMIT = 400  # characters of a value written on an edge (wrapped, not cut, below it)
_BACKGROUND, _INK, _FAILED, _MUTED = "#ffffff", "#212529", "#a4262c", "#6c757d"
MAX_PIXELS = 1 << 26  # Pillow's own bomb limit is 89M; a sheet's pictures need far less

MAX_NAME_PART = 100  # characters of a page's values in its file's name
_UNSAFE = re.compile(r"[^\w.+=-]+")

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def render(axes: list[Axis], sheet: Sheet) -> Image.Image:
    """The sheet as one picture: titles, column and row labels (long ones wrapped onto more
    lines, never cut), a cell per job."""
    font = ImageFont.load_default(size=16)
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    columns = len(axes[0].values)
    rows = len(axes[1].values) if len(axes) > 1 else 1
    row_texts = [axes[1].text(v, VALUE_LIMIT) for v in axes[1].values] if len(axes) > 1 else []
    widest = int(max((_width(measure, text, font) for text in row_texts), default=0))
    left = min(max(LABEL * 4, widest + 2 * PAD), ROW_LABEL_MAX) if row_texts else 0
    width = left + columns * CELL
    title = f"X: {axes[0].name}" + (f"    Y: {axes[1].name}" if len(axes) > 1 else "")
    if sheet.label:
        title += f"    ({sheet.label})"
    title_lines = wrap(measure, title, font, width - 2 * PAD)
    column_lines = [
        wrap(measure, axes[0].text(v, VALUE_LIMIT), font, CELL - 2 * PAD) for v in axes[0].values
    ]
    row_lines = [wrap(measure, text, font, left - 2 * PAD) for text in row_texts]
    top = 2 * PAD + LINE * len(title_lines)
    label_height = max(LABEL, 2 * PAD + LINE * max((len(ls) for ls in column_lines), default=1))
    row_height = max([CELL] + [2 * PAD + LINE * len(lines) for lines in row_lines])
    height = top + label_height + rows * row_height
    if width * height > MAX_PIXELS:
        raise InputError(f"the grid is too large to draw as one picture ({columns}×{rows} cells)")
    sheet_image = Image.new("RGB", (width, height), _BACKGROUND)
    draw = ImageDraw.Draw(sheet_image)
    _lines(draw, (PAD, PAD), title_lines, font, _INK)
    for c, lines in enumerate(column_lines):
        _lines(draw, (left + c * CELL + PAD, top + PAD), lines, font, _INK)
    for r, lines in enumerate(row_lines):
        _lines(draw, (PAD, top + label_height + r * row_height + PAD), lines, font, _INK)
    for (c, r), cell in sheet.cells.items():
        _cell(sheet_image, draw, font, (left + c * CELL, top + label_height + r * row_height), cell)
    return sheet_image


def wrap(draw: ImageDraw.ImageDraw, text: str, font: Font, width: int) -> list[str]:
    """``text`` in lines no wider than ``width`` pixels: broken between words, a word too long
    for a line broken within it; every character kept."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if _width(draw, candidate, font) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = ""
            for char in word:  # a word wider than the line: broken where it must
                if line and _width(draw, line + char, font) > width:
                    lines.append(line)
                    line = ""
                line += char
        lines.append(line)
    return lines


def _width(draw: ImageDraw.ImageDraw, text: str, font: Font) -> float:
    return draw.textlength(text, font=font)


def _lines(
    draw: ImageDraw.ImageDraw, at: tuple[int, int], lines: list[str], font: Font, fill: str
) -> None:
    for n, line in enumerate(lines):
        draw.text((at[0], at[1] + n * LINE), line, fill=fill, font=font)


def _cell(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    font: Font,
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
    text, colour = what_became(job)
    lines = wrap(draw, text, font, CELL - 4 * PAD)
    _lines(draw, (at[0] + 2 * PAD, at[1] + CELL // 2 - LINE * len(lines) // 2), lines, font, colour)


def what_became(job: JobRecord) -> tuple[str, str]:
    """What a cell without a picture says, in words ("failed: out of memory"), and its ink."""
    if job.state == JobState.failed:
        return f"failed: {reason_text(job.reason) or 'error'}", _FAILED  # in words, not codes
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

"""An axis of text values from the artist's own list: typed one per line, a .txt file, or a
column of a CSV file (by header name or by index). Errors name the file."""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from core.errors import CompositionError

if TYPE_CHECKING:
    from pathlib import Path

MAX_LIST_BYTES = 10 * 1024 * 1024
MAX_VALUES = 10_000


def typed_values(text: str, where: str = "the list") -> list[str]:
    """One value per line, each stripped; blank lines dropped."""
    values = [line.strip() for line in text.splitlines()]
    return _checked([value for value in values if value], where)


def file_values(path: Path, column: str | int | None = None) -> list[str]:
    """The values of a .txt file (one per line) or of a .csv file's ``column``: its header's
    name, or its index counted from 0 (the first column when None)."""
    text = _read(path)
    if path.suffix.lower() == ".csv":
        return csv_values(text, column if column is not None else 0, str(path))
    if column is not None:
        raise CompositionError(f"{path}: a column is chosen in a .csv file only")
    return typed_values(text, str(path))


def csv_values(text: str, column: str | int, where: str = "the CSV") -> list[str]:
    """A CSV column's non-blank values below its header row."""
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise CompositionError(f"{where} is not CSV: {exc}") from None
    if not rows:
        raise CompositionError(f"{where} is empty")
    header = [name.strip() for name in rows[0]]
    index = _column_index(header, column, where)
    values = [row[index].strip() for row in rows[1:] if index < len(row)]
    return _checked([value for value in values if value], f"{where}, column {header[index]!r}")


def _column_index(header: list[str], column: str | int, where: str) -> int:
    if isinstance(column, int):
        if not 0 <= column < len(header):
            raise CompositionError(f"{where} has no column {column} (it has {len(header)})")
        return column
    if column.strip() not in header:
        names = ", ".join(repr(name) for name in header)
        raise CompositionError(f"{where} has no column {column!r} (it has {names})")
    return header.index(column.strip())


def _read(path: Path) -> str:
    return read_text(path, MAX_LIST_BYTES)


def read_text(path: Path, limit: int, label: str = "") -> str:
    """A UTF-8 text file of at most ``limit`` bytes (a list, a wildcard file); errors name it
    (``label`` before its path: "the wildcard file ")."""
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as exc:
        raise CompositionError(f"{label}{path} cannot be read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise CompositionError(f"{label}{path} is larger than {limit // (1024 * 1024)} MB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CompositionError(f"{label}{path} is not UTF-8 text") from None


def _checked(values: list[str], where: str) -> list[str]:
    if not values:
        raise CompositionError(f"{where} holds no values")
    if len(values) > MAX_VALUES:
        raise CompositionError(f"{where} holds {len(values):,} values, more than {MAX_VALUES:,}")
    return values

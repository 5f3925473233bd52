"""Tests for core.batch.text_lists: an axis of texts from typed lines, a .txt file or a CSV
column, each refusal naming the file."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.batch.text_lists import MAX_VALUES, csv_values, file_values, typed_values
from core.errors import CompositionError

if TYPE_CHECKING:
    from pathlib import Path


def test_typed_lines_are_stripped_and_blanks_dropped() -> None:
    assert typed_values("a red fox\n\n  a blue owl  \r\n\t\n# kept\n") == [
        "a red fox",
        "a blue owl",
        "# kept",
    ]
    with pytest.raises(CompositionError, match="the list holds no values"):
        typed_values(" \n\n")


@given(st.lists(st.text(alphabet="ab {}|,#", min_size=1).map(str.strip).filter(bool), min_size=1))
def test_typed_values_come_back_as_written(values: list[str]) -> None:
    assert typed_values("\n\n".join(values)) == values


def test_a_txt_file_gives_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "prompts.txt"
    path.write_bytes("\ufeffa fox\n\na café\n".encode())
    assert file_values(path) == ["a fox", "a café"]
    with pytest.raises(CompositionError, match=r"a column is chosen in a \.csv file only"):
        file_values(path, "prompt")


def test_a_csv_column_by_name_or_index(tmp_path: Path) -> None:
    path = tmp_path / "list.CSV"
    path.write_text('id,prompt\n1,"a fox, red"\n2,\n3,an owl\n4\n', encoding="utf-8")
    assert file_values(path, "prompt") == ["a fox, red", "an owl"]
    assert file_values(path, 1) == ["a fox, red", "an owl"]
    assert file_values(path) == ["1", "2", "3", "4"]


@pytest.mark.parametrize(
    ("column", "cause"),
    [("style", r"has no column 'style' \(it has 'id', 'prompt'\)"), (5, r"has no column 5")],
)
def test_a_missing_column_names_the_file_and_its_columns(
    tmp_path: Path, column: str | int, cause: str
) -> None:
    path = tmp_path / "list.csv"
    path.write_text("id,prompt\n1,a fox\n", encoding="utf-8")
    with pytest.raises(CompositionError, match=re.escape(str(path)) + " " + cause):
        file_values(path, column)


def test_an_empty_column_names_the_file_and_the_column(tmp_path: Path) -> None:
    path = tmp_path / "list.csv"
    path.write_text("id,prompt\n1,\n", encoding="utf-8")
    with pytest.raises(CompositionError, match=r"list\.csv, column 'prompt' holds no values"):
        file_values(path, "prompt")
    with pytest.raises(CompositionError, match="is empty"):
        csv_values("", 0)


def test_unreadable_and_undecodable_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(CompositionError, match=r"missing\.txt cannot be read"):
        file_values(tmp_path / "missing.txt")
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9\n")
    with pytest.raises(CompositionError, match=r"latin\.txt is not UTF-8"):
        file_values(latin)


def test_too_many_values_are_refused() -> None:
    text = "\n".join(str(n) for n in range(MAX_VALUES + 1))
    with pytest.raises(CompositionError, match="10,001 values, more than 10,000"):
        typed_values(text)
    assert len(typed_values("\n".join(str(n) for n in range(MAX_VALUES)))) == MAX_VALUES

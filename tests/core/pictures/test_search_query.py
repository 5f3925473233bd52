"""The query language read into what the index runs, and its refusals: one sentence quoting the
part that cannot be read; any text at all is either a query SQLite runs or such a refusal."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InputError
from core.ledger import Ledger
from core.ledger.picture_index import DateSpan, PictureQuery
from core.pictures.search_query import parse_query
from tests.core.finished_pictures import add_preset, finished

if TYPE_CHECKING:
    from collections.abc import Iterator

PLAIN = "- {seed_end requester} : "


def test_words_phrases_and_prefixes_are_all_needed_anywhere() -> None:
    assert parse_query('fox "red fox" fo*') == PictureQuery(
        match=f'{PLAIN}"fox" AND {PLAIN}"red fox" AND {PLAIN}"fo" *'
    )
    assert parse_query("   ") == PictureQuery()


def test_fields_search_their_column() -> None:
    query = parse_query('prompt:fox neg:blurry model:"sd xl" value:cfg=7.5 Batch:evening')
    assert query.match == (
        'prompt : "fox" AND negative : "blurry" AND model : "sd xl" AND value : "cfg=7.5"'
        ' AND batch : "evening"'
    )
    server = parse_query("server:http://127.0.0.1:8188")
    assert server.match == 'server : "http://127.0.0.1:8188"'


def test_seeds_exact_ending_and_starting() -> None:
    assert parse_query("seed:42").match == 'seed : "42"'
    assert parse_query("seed:*42").match == 'seed_end : "24" *'
    assert parse_query("seed:42*").match == 'seed : "42" *'


def test_marks_and_negation() -> None:
    assert parse_query("is:starred -is:rejected") == PictureQuery(
        match='mark : "starred"', exclude='mark : "rejected"'
    )
    assert parse_query("is:unmarked") == PictureQuery(exclude='mark : ("starred" OR "rejected")')
    assert parse_query("-is:unmarked").match == 'mark : ("starred" OR "rejected")'
    assert parse_query('-blurry -"oil painting"').exclude == (
        f'{PLAIN}"blurry" OR {PLAIN}"oil painting"'
    )
    assert parse_query("fox-tail").match == f'{PLAIN}"fox-tail"'  # a minus inside is a word's


def test_dates_are_local_days_months_and_years() -> None:
    day = datetime(2026, 12, 1)
    (span,) = parse_query("date:2026-12-01").spans
    assert span == DateSpan(day.timestamp(), (day + timedelta(days=1)).timestamp())
    (month,) = parse_query("date:2026-12").spans
    assert month == DateSpan(day.timestamp(), datetime(2027, 1, 1).timestamp())
    after, before = parse_query("after:2026-12-01 -before:2026").spans
    assert after == DateSpan(day.timestamp(), None)
    assert before == DateSpan(None, datetime(2026, 1, 1).timestamp(), inside=False)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('fox "red', "the quote at character 5 is never closed"),
        ('seed:"4', "the quote at character 6 is never closed"),
        ("fox - snow", "a lone '-' negates nothing ('-')"),
        ("seed: 42", "seed: needs a value ('seed:')"),
        ("colour:red", "'colour:red': there is no field 'colour' (the fields are prompt,"),
        ("fox:1.2", "to search for a word with a colon, put it in quotes"),
        ("seed:abc", "'seed:abc': a seed is a whole number: seed:42 (exactly), seed:*42"),
        ("seed:*4*", "'seed:*4*': a seed is a whole number"),
        ("is:lovely", "'is:lovely': is: takes starred, rejected, marked, unmarked"),
        ("date:2026-13-01", "'date:2026-13-01': a date is written 2026-12-01"),
        ("after:9999", "'after:9999': a date is written"),
        ("before:yesterday", "'before:yesterday': a date is written"),
        ('""', "'\"\"' has no letters or digits to search for"),
        ("fox ...", "'...' has no letters or digits to search for"),
        ("fox\x00", "the search holds a control character (U+0000) at character 4"),
    ],
)
def test_a_part_that_cannot_be_read_is_named(text: str, says: str) -> None:
    with pytest.raises(InputError) as refused:
        parse_query(text)
    assert says in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.fixture(scope="module")
def searched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ledger]:
    folder = tmp_path_factory.mktemp("searched")
    with Ledger(folder / "home") as ledger:
        add_preset(ledger)
        finished(ledger, folder / "out", [{"3.seed": 1042, "3.cfg": 7.5}, {"3.seed": 9}])
        yield ledger


PIECES = st.sampled_from(
    [
        '"',
        "-",
        ":",
        "*",
        "seed:",
        "is:",
        "date:",
        "prompt:",
        "value:",
        "fox",
        "42",
        " ",
        "(",
        ")",
        "OR",
        "NOT",
        "{",
        "}",
        "^",
        "NEAR(",
        "'",
        "\\",
        "é",
        "🦊",
        "\t",
        "\u200f",
    ]
)
TEXTS = st.one_of(st.text(max_size=40), st.lists(PIECES, max_size=12).map("".join))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=TEXTS)
def test_any_text_is_a_search_sqlite_runs_or_an_input_error(searched: Ledger, text: str) -> None:
    try:
        query = parse_query(text)
    except InputError as refused:
        said = str(refused)
    else:
        said = ""
    if said:
        assert "\n" not in said
        return
    searched.picture_index.search(query, limit=5)
    searched.picture_index.search(query, requester="artist", limit=5)

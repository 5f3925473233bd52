"""Tests for core.batch.wildcards: {a|b}, {2$$a|b|c}, __name__ files, random and combinatorial
expansion, and the limits that refuse a bomb before building it."""

from __future__ import annotations

import itertools
import math
import os
import re
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.batch.wildcards import (
    MAX_DEPTH,
    MAX_EXPANSIONS,
    MAX_LENGTH,
    Template,
    WildcardMode,
    count_expansions,
    expand_all,
    expand_random,
    has_wildcards,
)
from core.errors import CompositionError, InputError

if TYPE_CHECKING:
    from pathlib import Path


def _folder(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "wildcards"
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        path = folder / f"{name.replace('__', '/')}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def test_one_of_each_choice_every_combination_in_written_order() -> None:
    assert expand_all("a {red|blue} {fox|cat}") == [
        "a red fox",
        "a red cat",
        "a blue fox",
        "a blue cat",
    ]


def test_two_of_them_are_distinct_and_joined_by_a_comma() -> None:
    assert expand_all("{2$$a|b|c}") == ["a, b", "a, c", "b, c"]
    for seed in range(50):
        first, second = expand_random("{2$$a|b|c}", seed).split(", ")
        assert first != second
        assert {first, second} <= {"a", "b", "c"}


def test_ranges_take_between_so_many_options() -> None:
    assert expand_all("{1-2$$a|b}") == ["a", "b", "a, b"]
    assert expand_all("x{0-1$$a}") == ["x", "xa"]
    assert expand_all("{-2$$a|b}") == ["a", "b", "a, b"]
    assert expand_all("{2$$ and $$a|b|c}") == ["a and b", "a and c", "b and c"]
    assert expand_all("{2-$$ + $$a|b}") == ["a + b"]
    assert expand_all("{5$$a|b}") == ["a, b"]
    assert count_expansions("{1-3$$a|b|c}") == 7
    with pytest.raises(CompositionError, match="backwards"):
        expand_all("{3-1$$a|b|c}")


def test_escaped_braces_stay_literal() -> None:
    assert expand_all(r"\{not|a wildcard\} {x\|y|z}") == [
        "{not|a wildcard} x|y",
        "{not|a wildcard} z",
    ]
    assert not has_wildcards("a plain (prompt:1.2), \\(paren\\)")
    assert expand_all("a plain (prompt:1.2), \\(paren\\)") == ["a plain (prompt:1.2), \\(paren\\)"]
    assert has_wildcards("a {b|c}")
    assert has_wildcards("__animals__")


def test_empty_options_are_choices_too() -> None:
    assert expand_all("a{| red} fox") == ["a fox", "a red fox"]
    assert expand_all("{}") == [""]


@pytest.mark.parametrize(
    ("text", "cause"),
    [("a {b|c", "never closed"), ("a b|c}", "closes no"), ("{a|{b}", "never closed")],
)
def test_unbalanced_braces_are_refused(text: str, cause: str) -> None:
    with pytest.raises(CompositionError, match=cause):
        Template(text)


def test_the_same_seed_gives_the_same_text_and_seeds_differ(tmp_path: Path) -> None:
    folder = _folder(tmp_path, animals="fox\ncat\nowl\nbear\nwolf\n")
    text = "a {red|blue|green|grey} __animals__ {at dawn|at night|{in|under} rain}"
    texts = [expand_random(text, seed, folder) for seed in range(40)]
    assert texts == [expand_random(text, seed, folder) for seed in range(40)]
    assert len(set(texts)) > 10
    assert set(texts) <= set(expand_all(text, folder))


def test_the_salt_keeps_two_inputs_with_one_seed_apart() -> None:
    text = "{" + "|".join(str(n) for n in range(1000)) + "}"
    same = [
        expand_random(text, s, salt="6.text") == expand_random(text, s, salt="7.text")
        for s in range(20)
    ]
    assert not all(same)


def test_a_wildcard_file_gives_one_line_each_skipping_blanks_and_comments(tmp_path: Path) -> None:
    folder = _folder(tmp_path, animals="# animals\nfox\n\n  cat  \n# owl\n")
    assert expand_all("a __animals__", folder) == ["a fox", "a cat"]


def test_files_may_nest_wildcards_and_braces_and_live_in_subfolders(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path,
        animals="{red|blue} fox\n__colours/warm__ cat",
        colours__warm="orange\nyellow",
    )
    assert expand_all("__animals__", folder) == ["red fox", "blue fox", "orange cat", "yellow cat"]
    assert count_expansions("__animals__ and __animals__", folder) == 16


def test_a_missing_wildcard_file_names_the_file_and_the_folder(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    with pytest.raises(
        InputError, match=f"no wildcard file 'animals.txt' in {re.escape(str(folder))}"
    ):
        Template("a __animals__", folder)
    with pytest.raises(CompositionError, match="needs a wildcards folder"):
        Template("a __animals__")


def test_an_empty_or_undecodable_file_is_refused(tmp_path: Path) -> None:
    folder = _folder(tmp_path, empty="# nothing\n\n")
    (folder / "latin.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(CompositionError, match=r"empty.txt has no lines"):
        Template("__empty__", folder)
    with pytest.raises(CompositionError, match=r"latin.txt is not UTF-8"):
        Template("__latin__", folder)


def test_a_link_leaving_the_folder_is_refused_one_inside_it_is_read(tmp_path: Path) -> None:
    folder = _folder(tmp_path, animals="fox")
    (tmp_path / "secret.txt").write_text("password", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", folder / "secret.txt")
    os.symlink(folder / "animals.txt", folder / "beasts.txt")
    with pytest.raises(CompositionError, match=r"'secret.txt' is outside"):
        Template("__secret__", folder)
    assert expand_all("__beasts__", folder) == ["fox"]


def test_dotted_names_are_not_wildcards(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (tmp_path / "secret.txt").write_text("password", encoding="utf-8")
    assert expand_all("__../secret__", folder) == ["__../secret__"]


def test_a_folder_named_like_a_file_is_not_a_file(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "animals.txt").mkdir()
    with pytest.raises(CompositionError, match=r"no wildcard file 'animals.txt'"):
        Template("__animals__", folder)


def test_a_file_including_itself_is_refused(tmp_path: Path) -> None:
    folder = _folder(tmp_path, loop="a __loop__\nb", ping="__pong__", pong="x\n__ping__")
    with pytest.raises(CompositionError, match=r"'loop.txt' includes itself"):
        Template("__loop__", folder)
    with pytest.raises(CompositionError, match=r"'ping.txt' includes itself"):
        expand_random("__ping__", 1, folder)


def test_nesting_deeper_than_the_limit_is_refused() -> None:
    deep = "{a|" * MAX_DEPTH + "b" + "}" * MAX_DEPTH
    assert count_expansions(deep) == MAX_DEPTH + 1
    deeper = "{a|" * (MAX_DEPTH + 1) + "b" + "}" * (MAX_DEPTH + 1)
    with pytest.raises(CompositionError, match=f"a wildcard nests deeper than {MAX_DEPTH}"):
        Template(deeper)
    with pytest.raises(CompositionError, match="nests deeper"):
        Template("{" * 100_000)


def test_files_count_in_the_nesting(tmp_path: Path) -> None:
    chain = {f"f{n}": f"{{x|__f{n + 1}__}}" for n in range(MAX_DEPTH)}
    folder = _folder(tmp_path, **chain, **{f"f{MAX_DEPTH}": "end"})
    with pytest.raises(CompositionError, match="nests deeper"):
        Template("__f0__", folder)
    assert count_expansions(f"__f{MAX_DEPTH - 2}__", folder) == 3


def test_a_file_read_shallow_first_still_counts_deep(tmp_path: Path) -> None:
    folder = _folder(tmp_path, inner="{" * 4 + "a" + "}" * 4)
    assert count_expansions("__inner__", folder) == 1
    with pytest.raises(CompositionError, match="nests deeper"):
        Template("__inner__ " + "{" * 4 + "__inner__" + "}" * 4, folder)


def test_a_bomb_is_counted_and_refused_without_building_it() -> None:
    bomb = "{a|b}" * 30
    assert count_expansions(bomb) == 2**30
    with pytest.raises(
        CompositionError, match="this expands to 1,073,741,824 prompts, more than 10,000"
    ):
        expand_all(bomb)
    assert len(expand_random(bomb, 7)) == 30
    assert Template(bomb).examples(WildcardMode.combinatorial, 0, 2) == ["a" * 30, "a" * 29 + "b"]


def test_a_bomb_through_files_is_counted_capped(tmp_path: Path) -> None:
    folder = _folder(tmp_path, big="\n".join(f"w{n}" for n in range(1000)))
    template = Template("__big__ " * 8, folder)
    assert template.count() == 10**15
    with pytest.raises(CompositionError, match="more than 1,000,000,000,000,000 prompts"):
        template.every_text()
    assert len(template.examples(WildcardMode.combinatorial, 0)) == 3


def test_the_limit_is_inclusive() -> None:
    text = "{a|b|c|d|e|f|g|h|i|j}" * 4
    assert len(expand_all(text)) == MAX_EXPANSIONS
    with pytest.raises(CompositionError, match="more than 9,999"):
        expand_all(text, limit=MAX_EXPANSIONS - 1)


def test_a_text_that_can_grow_too_long_is_refused_whatever_the_seed(tmp_path: Path) -> None:
    folder = _folder(tmp_path, long="x" * (MAX_LENGTH // 2 + 1) + "\nshort")
    with pytest.raises(CompositionError, match=r"more than 10,000"):
        Template("__long__ and __long__", folder)
    assert expand_all("__long__", folder)[1] == "short"


def test_examples_follow_the_mode() -> None:
    template = Template("{a|b|c|d}")
    assert template.examples(WildcardMode.combinatorial, 0) == ["a", "b", "c"]
    randoms = template.examples(WildcardMode.random, 100, count=5)
    assert randoms == list(dict.fromkeys(template.random_text(100 + n) for n in range(5)))
    assert template.examples(WildcardMode.random, 0, count=0) == []


_options = st.lists(st.text(alphabet="abxyz ", max_size=3), min_size=1, max_size=4)


@st.composite
def _templates(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(st.text(alphabet="pq ,", max_size=3), _options), max_size=5))
    return "".join(part if isinstance(part, str) else "{" + "|".join(part) + "}" for part in parts)


@given(_templates(), st.integers(min_value=0, max_value=2**64))
def test_random_texts_are_among_the_combinatorial_ones(text: str, seed: int) -> None:
    every = expand_all(text)
    assert len(every) == count_expansions(text)
    assert expand_random(text, seed) in every


@given(st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=5), st.data())
def test_multi_picks_count_every_subset(sizes: list[int], data: st.DataObject) -> None:
    options = [
        ("{" + "|".join(f"o{n}v{k}" for k in range(size)) + "}") for n, size in enumerate(sizes)
    ]
    picks = data.draw(st.integers(min_value=1, max_value=len(sizes)))
    text = f"{{{picks}$$" + "|".join(options) + "}"
    every = expand_all(text)
    assert len(every) == count_expansions(text) == len(set(every))
    assert all(len(t.split(", ")) == picks for t in every)
    assert len(every) == sum(math.prod(c) for c in _subsets(sizes, picks))


def _subsets(sizes: list[int], picks: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations(sizes, picks))


@given(st.text(max_size=40))
def test_any_text_parses_or_is_refused_as_input(text: str) -> None:
    try:
        template = Template(text)
    except CompositionError:
        return
    assert len(template.examples(WildcardMode.combinatorial, 0)) >= 1
    if not has_wildcards(text):
        assert template.every_text() == [text]

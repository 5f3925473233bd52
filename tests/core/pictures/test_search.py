"""Searching every picture: by prompt words, seed, model, LoRA, a varied value, marks, batch
name, server and date, newest first; a page checked; pictures deleted by hand left out; the
saved searches checked before they are kept."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import pytest

from core.errors import InputError, UnknownRecord
from core.ledger import Ledger
from core.ledger.marks import Mark
from core.pictures.search import (
    delete_search,
    newer_than,
    page_after,
    save_search,
    saved_search,
    saved_searches,
    search,
)
from core.pictures.trash import trash_picture
from tests.core.finished_pictures import add_preset, finished
from tests.trash_home import use_trash

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def library(tmp_path: Path) -> Iterator[tuple[Ledger, list[str]]]:
    """Four jobs: a fox (seed 1042, cfg 7.5, starred), an owl (seed 42, another model,
    rejected), a fox in the snow (seed 7, LoRA film_grain), a cat on another server."""
    with Ledger(tmp_path / "home") as ledger:
        add_preset(ledger)
        _, foxes = finished(
            ledger,
            tmp_path / "out",
            [
                {"3.seed": 1042, "3.cfg": 7.5},
                {
                    "3.seed": 42,
                    "6.text": "an owl at dusk",
                    "4.ckpt_name": "dreamshaper_8.safetensors",
                },
                {
                    "3.seed": 7,
                    "6.text": "a fox in the snow",
                    "10.lora_name": "film_grain.safetensors",
                },
            ],
            name="Evening foxes",
        )
        _, (cat,) = finished(
            ledger,
            tmp_path / "out",
            [{"3.seed": 99, "6.text": "a cat", "3.sampler_name": "ddim"}],
            server="http://gpu-2:8188",
        )
        ledger.marks.set([foxes[0]], Mark.star)
        ledger.marks.set([foxes[1]], Mark.reject)
        yield ledger, [*foxes, cat]


def found(ledger: Ledger, query: str, **kwargs: object) -> list[str]:
    return [hit.job_id for hit in search(ledger, query, **kwargs)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", [3, 2, 1, 0]),
        ("fox", [2, 0]),  # the prompt's word
        ("fox misty", [0]),
        ('"in the snow"', [2]),
        ("prompt:owl", [1]),
        ("negative:blurry", [3, 2, 1, 0]),
        ("prompt:blurry", []),
        ("seed:42", [1]),
        ("seed:*42", [1, 0]),  # 42 and 1042
        ("seed:10*", [0]),
        ("model:dreamshaper", [1]),
        ("model:v1-5 -fox", [3]),
        ("lora:film", [2]),
        ("lora:detail", [3, 1, 0]),
        ("value:cfg=7.5", [0]),
        ("value:ddim", [3]),
        ("value:sampler_name=ddim", [3]),
        ("is:starred", [0]),
        ("starred", [0]),
        ("is:rejected", [1]),
        ("is:unmarked", [3, 2]),
        ("-is:unmarked fox", [0]),
        ("batch:evening", [2, 1, 0]),
        ("server:gpu-2", [3]),
        ("preset:portrait owl", [1]),
        ("fox -snow", [0]),
        ("dusk*", [1]),
        ("FOX", [2, 0]),
    ],
)
def test_a_search_finds_pictures_by_what_made_them(
    library: tuple[Ledger, list[str]], query: str, expected: list[int]
) -> None:
    ledger, ids = library
    assert found(ledger, query) == [ids[n] for n in expected]


def test_dates_find_the_days_pictures(library: tuple[Ledger, list[str]]) -> None:
    ledger, ids = library
    today = datetime.now().strftime("%Y-%m-%d")
    assert found(ledger, f"date:{today} fox") == [ids[2], ids[0]]
    assert found(ledger, f"before:{today}") == []
    assert found(ledger, f"-after:{today}") == []
    assert found(ledger, f"after:{today} is:starred") == [ids[0]]


def test_a_page_and_its_bounds(library: tuple[Ledger, list[str]]) -> None:
    ledger, ids = library
    assert found(ledger, "", limit=2, offset=1) == [ids[2], ids[1]]
    with pytest.raises(InputError, match="limit is 1 to 1000 pictures, not 0"):
        search(ledger, "", limit=0)
    with pytest.raises(InputError, match="offset is 0 to"):
        search(ledger, "", offset=-1)
    with pytest.raises(InputError, match="limit is 1 to 1000 pictures, not 1001"):
        page_after(ledger, "", None, limit=1001)


def pages(ledger: Ledger, query: str, limit: int) -> list[list[tuple[str, int]]]:
    """Every page ``page_after`` reads of ``query``, each picture as (job, its place)."""
    read: list[list[tuple[str, int]]] = []
    after = None
    while page := page_after(ledger, query, after, limit=limit):
        read.append([(hit.job_id, hit.index) for hit in page])
        after = page[-1].place
    return read


@pytest.mark.parametrize("query", ["", "fox", "-owl"])
def test_pages_after_the_last_read_walk_the_search_once_each_job_split_across_pages(
    tmp_path: Path, query: str
) -> None:
    with Ledger(tmp_path / "home") as ledger:
        add_preset(ledger)
        finished(ledger, tmp_path / "out", [{"3.seed": n} for n in range(4)], pictures=3)
        finished(ledger, tmp_path / "out", [{"3.seed": 9, "6.text": "an owl"}], pictures=2)
        whole = [(hit.job_id, hit.index) for hit in search(ledger, query)]
        read = pages(ledger, query, limit=5)
        assert [len(page) for page in read] == [5] * (len(whole) // 5) + (
            [len(whole) % 5] if len(whole) % 5 else []
        )
        assert [picture for page in read for picture in page] == whole  # none twice, none left
        assert len(whole) == (14 if query == "" else 12)


def test_a_page_after_reads_past_a_folder_deleted_by_hand(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        add_preset(ledger)
        _, old = finished(ledger, tmp_path / "old", [{"3.seed": n} for n in range(3)])
        finished(ledger, tmp_path / "gone", [{"3.seed": n} for n in range(7)])
        _, new = finished(ledger, tmp_path / "new", [{"3.seed": n} for n in range(2)])
        for path in (tmp_path / "gone").iterdir():
            path.unlink()  # seven pictures, more than a page of three
        assert found(ledger, "", limit=3, offset=2) == []  # an offset's page holds fewer
        assert pages(ledger, "", limit=3) == [
            [(new[1], 0), (new[0], 0), (old[2], 0)],
            [(old[1], 0), (old[0], 0)],
        ]


def test_pictures_that_finish_between_pages_bring_none_read_into_the_next(
    tmp_path: Path,
) -> None:
    with Ledger(tmp_path / "home") as ledger:
        add_preset(ledger)
        _, first = finished(ledger, tmp_path / "out", [{"3.seed": n} for n in range(4)])
        page = page_after(ledger, "", None, limit=2)
        assert [hit.job_id for hit in page] == [first[3], first[2]]
        finished(ledger, tmp_path / "out", [{"3.seed": n} for n in range(5)])  # come first
        assert [hit.job_id for hit in page_after(ledger, "", page[-1].place, limit=2)] == first[
            1::-1
        ]
        assert found(ledger, "", limit=2, offset=2) != first[1::-1]  # an offset's would


@pytest.mark.parametrize("query", ["", "fox"])
def test_the_pictures_newer_than_the_newest_shown(tmp_path: Path, query: str) -> None:
    with Ledger(tmp_path / "home") as ledger:
        add_preset(ledger)
        finished(ledger, tmp_path / "out", [{"3.seed": n} for n in range(3)])
        newest = search(ledger, query)[0].place
        assert newer_than(ledger, query, newest) == []
        _, new = finished(ledger, tmp_path / "out", [{"3.seed": 5}, {"3.seed": 6}], pictures=2)
        arrived = newer_than(ledger, query, newest)
        assert [(hit.job_id, hit.index) for hit in arrived or []] == [
            (new[1], 0),
            (new[1], 1),
            (new[0], 0),
            (new[0], 1),
        ]
        assert newer_than(ledger, query, newest, limit=3) is None  # too many: read it again


def test_another_requesters_pictures_are_not_found(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        add_preset(ledger)
        _, mine = finished(ledger, tmp_path / "out", [{"3.seed": 1}], requester="alice")
        finished(ledger, tmp_path / "out", [{"3.seed": 2}], requester="bob")
        assert found(ledger, "fox", requester="alice") == mine
        assert found(ledger, "seed:2", requester="alice") == []


def test_a_trashed_picture_is_found_no_more_nor_one_deleted_by_hand(
    library: tuple[Ledger, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger, ids = library
    use_trash(monkeypatch, tmp_path)
    (hit,) = search(ledger, "seed:7")
    trash_picture(ledger, ids[2], hit.path)
    assert found(ledger, "fox") == [ids[0]]
    (owl,) = search(ledger, "owl")
    owl.path.unlink()
    assert found(ledger, "") == [ids[3], ids[0]]


def test_relative_paths_are_read_under_the_output_folder(
    library: tuple[Ledger, list[str]], tmp_path: Path
) -> None:
    ledger, _ = library
    with ledger.handle.tx():
        ledger.handle.database.execute_sql(
            "UPDATE picture_file SET path = substr(path, ?)", (len(str(tmp_path / "out")) + 2,)
        )
    assert search(ledger, "cat") == []  # not under the working folder
    (hit,) = search(ledger, "cat", output_dir=tmp_path / "out")
    assert hit.path.is_file()


def test_saved_searches_are_checked_kept_and_forgotten(library: tuple[Ledger, list[str]]) -> None:
    ledger, ids = library
    with pytest.raises(InputError, match="there is no field 'colour'"):
        save_search(ledger, "Reds", "colour:red")
    save_search(ledger, "Starred foxes", "  fox is:starred ")
    assert [(s.name, s.query) for s in saved_searches(ledger)] == [
        ("Starred foxes", "fox is:starred")
    ]
    assert found(ledger, saved_search(ledger, "Starred foxes").query) == [ids[0]]
    delete_search(ledger, "Starred foxes")
    with pytest.raises(UnknownRecord):
        saved_search(ledger, "Starred foxes")

"""`batchline search QUERY` (lines or JSON, a page, saved under a name) and `batchline
searches` (list, forget), over pictures the ledger recorded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.ledger import Ledger
from core.ledger.marks import Mark
from tests.core.finished_pictures import add_preset, finished

if TYPE_CHECKING:
    from pathlib import Path

    from tests.cli.conftest import Cli


def pictures(cli: Cli, tmp_path: Path) -> list[str]:
    with Ledger(cli.home) as ledger:
        add_preset(ledger)
        _, ids = finished(
            ledger,
            tmp_path / "out",
            [{"3.seed": 1042}, {"3.seed": 7, "6.text": "an owl"}, {"3.seed": 42}],
        )
        ledger.marks.set([ids[2]], Mark.star)
    return ids


def test_a_search_prints_the_pictures_newest_first(cli: Cli, tmp_path: Path) -> None:
    ids = pictures(cli, tmp_path)
    found = cli("search", "fox", "seed:*42")
    assert found.code == 0, found.err
    lines = found.out.splitlines()
    assert [line.split()[2] for line in lines] == [ids[2], ids[0]]
    assert lines[0].endswith(str(tmp_path / "out" / f"{ids[2]}_0.png"))
    data = cli("search", "fox is:starred", "--json").json()
    assert [(p["job"], p["index"]) for p in data] == [(ids[2], 0)]
    assert data[0]["path"] == str(tmp_path / "out" / f"{ids[2]}_0.png")
    assert data[0]["finished_at"].endswith("Z")
    page = cli("search", "--limit", "1", "--offset", "1", "--json").json()
    assert [p["job"] for p in page] == [ids[1]]
    assert cli("search", "cat").out == "no picture found by 'cat'\n"


def test_pages_follow_the_place_of_the_last_picture_and_miss_none_as_pictures_finish(
    cli: Cli, tmp_path: Path
) -> None:
    ids = pictures(cli, tmp_path)
    first = cli("search", "--limit", "2", "--json").json()
    assert [p["job"] for p in first] == [ids[2], ids[1]]
    with Ledger(cli.home) as ledger:  # one finishes between the two pages
        _, newer = finished(ledger, tmp_path / "out", [{"3.seed": 5}])
    after = cli("search", "--limit", "2", "--after", first[-1]["place"], "--json").json()
    assert [p["job"] for p in after] == [ids[0]]
    by_offset = cli("search", "--limit", "2", "--offset", "2", "--json").json()
    assert [p["job"] for p in by_offset] == [ids[1], ids[0]]  # offsets repeat one: ids[1]
    assert cli("search", "--json").json()[0]["job"] == newer[0]
    refused = cli("search", "--after", "12")
    assert refused.code == 2
    assert "'12' is not a place (ENTRY.N" in refused.err
    assert cli("search", "--after", "1.0", "--offset", "1").code == 2


def test_a_query_that_cannot_be_read_is_one_line_and_exit_2(cli: Cli, tmp_path: Path) -> None:
    pictures(cli, tmp_path)
    refused = cli("search", "seed:abc")
    assert refused.code == 2
    assert refused.err.startswith("batchline: 'seed:abc': a seed is a whole number")
    assert refused.err.count("\n") == 1
    assert cli("search", "--limit", "0").code == 2


def test_searches_are_saved_run_listed_and_forgotten(cli: Cli, tmp_path: Path) -> None:
    ids = pictures(cli, tmp_path)
    saved = cli("search", "owl", "--save", "Owls")
    assert (saved.code, saved.out.split()[2]) == (0, ids[1])
    assert cli("search", "--saved", "Owls", "--json").json()[0]["job"] == ids[1]
    assert cli("searches").out == "Owls\towl\n"
    bad = cli("search", "colour:red", "--save", "Reds")
    assert bad.code == 2
    assert cli("searches", "--delete", "Owls").out == "forgot the search 'Owls'\n"
    assert cli("searches").out.startswith("no saved search")
    unknown = cli("search", "--saved", "Owls")
    assert (unknown.code, unknown.err) == (2, "batchline: no saved search 'Owls'\n")


def test_the_help_tells_the_query_language(cli: Cli) -> None:
    shown = cli("search", "--help")
    assert shown.code == 0
    for part in ('"red fox"', "seed:*42", "is:starred", "after:2026-12-01", "value:cfg=7.5"):
        assert part in shown.out

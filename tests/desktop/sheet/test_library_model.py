"""The library's model: every picture newest first, read a page at a time as the view asks,
marks as badges, a bad query refused with the pictures kept."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import QModelIndex

from core.errors import InputError
from core.ledger.marks import Mark
from desktop.sheet import library_model
from desktop.sheet.contact_sheet_model import MARK_ROLE, PATH_ROLE
from desktop.sheet.library_model import LibraryModel
from tests.core.finished_pictures import add_preset, finished
from tests.desktop.sheet.library_pictures import fill_library

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def library(qtmodeltester, ledger, thumbnails):
    model = LibraryModel(ledger, thumbnails)
    yield model
    qtmodeltester.check(model)


def _job_ids(model: LibraryModel) -> list[str]:
    return [hit.job_id for hit in model.hits()]


def test_every_picture_newest_first_with_its_mark(library, ledger, tmp_path: Path) -> None:
    jobs = fill_library(ledger, tmp_path / "out")
    library.set_query("")
    assert _job_ids(library) == [jobs["cat"], jobs["snow"], jobs["owl"], jobs["fox"]]
    fox = library.index(3)
    assert fox.data(MARK_ROLE) == Mark.star
    assert fox.data(PATH_ROLE).endswith(".png")
    assert "Evening foxes" in fox.data()


def test_pages_are_read_as_the_view_scrolls(library, ledger, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(library_model, "PAGE", 2)
    add_preset(ledger)
    finished(ledger, tmp_path / "out", [{"3.seed": n} for n in range(5)])
    library.set_query("")
    assert library.rowCount() == 2
    while library.canFetchMore(QModelIndex()):
        library.fetchMore(QModelIndex())
    assert library.rowCount() == 5


def test_pictures_finished_while_scrolling_are_not_shown_twice(
    library, ledger, tmp_path, monkeypatch
) -> None:
    """A batch runs while the artist scrolls the library: the pictures it finishes come first
    in the index, and a page counted by offset would bring those shown back in."""
    monkeypatch.setattr(library_model, "PAGE", 2)
    add_preset(ledger)
    _, older = finished(ledger, tmp_path / "out", [{"3.seed": n} for n in range(4)])
    library.set_query("")
    finished(ledger, tmp_path / "out", [{"3.seed": n} for n in range(3)])
    while library.canFetchMore(QModelIndex()):
        library.fetchMore(QModelIndex())
    assert _job_ids(library) == older[::-1]


def test_pictures_that_arrive_go_above_the_newest_shown(
    library, ledger, tmp_path, qtbot, monkeypatch
) -> None:
    monkeypatch.setattr(library_model, "PAGE", 2)
    add_preset(ledger)
    _, older = finished(ledger, tmp_path / "out", [{"3.seed": n} for n in range(3)])
    library.set_query("")
    assert library.add_newer() == 0
    _, new = finished(ledger, tmp_path / "out", [{"3.seed": 7}, {"3.seed": 8}], name="Later")
    with qtbot.waitSignal(library.rowsInserted) as inserted:
        assert library.add_newer() == 2
    assert inserted.args[1:] == [0, 1]
    assert _job_ids(library) == [new[1], new[0], older[2], older[1]]
    assert library.index(0).data().startswith("Later · ")
    while library.canFetchMore(QModelIndex()):
        library.fetchMore(QModelIndex())
    assert _job_ids(library) == [*new[::-1], *older[::-1]]  # none twice, none left


def test_a_bad_query_keeps_the_pictures_shown(library, ledger, tmp_path: Path) -> None:
    fill_library(ledger, tmp_path / "out")
    library.set_query("fox")
    before = _job_ids(library)
    with pytest.raises(InputError, match="seed"):
        library.set_query("seed:abc")
    assert _job_ids(library) == before
    assert library.query == "fox"


def test_a_cell_says_its_batch_and_the_values_its_job_has(library, ledger, tmp_path) -> None:
    """Seen on a real ComfyUI: cells read "Fox portrait · cfg × 3 seeds · job_2026…_1-4.png";
    a file's name tells the artist nothing, the values the job was made with do."""
    jobs = fill_library(ledger, tmp_path / "out")
    library.set_query("")
    labels = {hit.job_id: library.label(hit) for hit in library.hits()}
    assert labels[jobs["fox"]].startswith("Evening foxes · ")
    assert "seed 1042" in labels[jobs["fox"]]
    assert "cfg 7.5" in labels[jobs["fox"]]
    assert "seed 42" in labels[jobs["owl"]]
    assert not any(".png" in label for label in labels.values())

"""The library view: a search finds pictures by prompt words, seed, model, a varied value and
marks; a bad query says why under the box and keeps the pictures; a saved search is a board
that survives a restart and can be deleted; bulk star, reject, export and trash act on exactly
the selection, or on every picture found after a confirmation telling how many."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from PIL import Image

from core.ledger import Ledger
from core.ledger.marks import Mark
from desktop.sheet import library_model, library_view
from desktop.sheet.library_view import ALL_RESULTS, LibraryWidget, board_text
from tests.core.finished_pictures import add_preset, finished
from tests.desktop.fakes import FakeController
from tests.desktop.sheet.library_pictures import fill_library
from tests.trash_home import use_trash

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def jobs(ledger, tmp_path: Path) -> dict[str, str]:
    return fill_library(ledger, tmp_path / "out")


@pytest.fixture
def library(qtbot, ledger, thumbnails, controller, jobs) -> LibraryWidget:
    widget = LibraryWidget(ledger, thumbnails, controller)
    qtbot.addWidget(widget)
    widget.show_library()
    return widget


def _found(library: LibraryWidget, query: str) -> set[str]:
    library.search_box.setText(query)
    assert library.run_search()
    return {hit.job_id for hit in library.model.hits()}


def _by_name(jobs: dict[str, str], *names: str) -> set[str]:
    return {jobs[name] for name in names}


def test_a_search_finds_by_words_seed_model_value_and_mark(library, jobs) -> None:
    assert _found(library, "") == set(jobs.values())
    assert _found(library, "fox") == _by_name(jobs, "fox", "snow")
    assert _found(library, "seed:*42") == _by_name(jobs, "fox", "owl")
    assert _found(library, "seed:7") == _by_name(jobs, "snow")
    assert _found(library, "model:dreamshaper") == _by_name(jobs, "owl")
    assert _found(library, "lora:film_grain") == _by_name(jobs, "snow")
    assert _found(library, "value:ddim") == _by_name(jobs, "cat")
    assert _found(library, "is:starred") == _by_name(jobs, "fox")


def test_pictures_arrive_on_top_and_wait_while_the_artist_is_scrolled_down(
    qtbot, ledger, thumbnails, controller, tmp_path, monkeypatch
) -> None:
    """The library showed a batch's pictures only when its tab was chosen again; they now
    come as they finish, without moving the pictures being looked at."""
    monkeypatch.setattr(library_model, "PAGE", 20)
    add_preset(ledger)
    finished(ledger, tmp_path / "out", [{"3.seed": n} for n in range(60)])
    widget = LibraryWidget(ledger, thumbnails, controller)
    qtbot.addWidget(widget)
    widget.resize(700, 500)
    widget.show()
    widget.show_library()
    bar = widget.view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    first = widget.model.hits()[0]
    _, (seen_later,) = finished(ledger, tmp_path / "out", [{"3.seed": 100}])
    widget.pictures_arrived()
    assert widget.model.hits()[0] == first, "scrolled down: the pictures stay"
    bar.setValue(0)
    assert widget.model.hits()[0].job_id == seen_later
    _, (at_top,) = finished(ledger, tmp_path / "out", [{"3.seed": 101}])
    widget.pictures_arrived()
    assert widget.model.hits()[0].job_id == at_top


def test_a_bad_query_says_why_in_one_line_and_keeps_the_pictures(library, jobs) -> None:
    shown = _found(library, "fox")
    library.search_box.setText('fox "snow')
    assert not library.run_search()
    assert library.why.isVisibleTo(library)
    assert library.why.text().startswith("Cannot search: ")
    assert "\n" not in library.why.text()
    assert {hit.job_id for hit in library.model.hits()} == shown
    _found(library, "owl")
    assert not library.why.isVisibleTo(library)


def test_a_saved_search_is_a_board_after_a_restart(
    qtbot, tmp_path, thumbnails, monkeypatch
) -> None:
    with Ledger(tmp_path / "home") as ledger:
        jobs = fill_library(ledger, tmp_path / "out")
        first = LibraryWidget(ledger, thumbnails, FakeController(ledger))
        qtbot.addWidget(first)
        first.search_box.setText("fox lora:film_grain")
        monkeypatch.setattr(library_view, "ask_name", lambda _parent, _text: "Fox grain")
        first.ask_save()
        assert first.boards.currentText() == board_text("Fox grain")
    with Ledger(tmp_path / "home") as ledger:  # a new window on the same ledger
        again = LibraryWidget(ledger, thumbnails, FakeController(ledger))
        qtbot.addWidget(again)
        texts = [again.boards.itemText(i) for i in range(again.boards.count())]
        assert texts == ["All pictures (library)", "★ Fox grain (board)"]
        again.boards.setCurrentIndex(1)
        assert again.search_box.text() == "fox lora:film_grain"
        assert {hit.job_id for hit in again.model.hits()} == {jobs["snow"]}
        monkeypatch.setattr(library_view, "confirm", lambda *_args, **_kw: True)
        again.delete_board()
        assert again.boards.count() == 1
        assert again.search_box.text() == ""
        assert again.model.rowCount() == 4


def test_bulk_marks_apply_to_exactly_the_selection(library, ledger, jobs, controller) -> None:
    rows = {hit.job_id: row for row, hit in enumerate(library.model.hits())}
    library.select_rows([rows[jobs["owl"]], rows[jobs["cat"]]])
    library.reject.click()
    marks = ledger.marks.of(list(jobs.values()))
    assert marks == {jobs["fox"]: Mark.star, jobs["owl"]: Mark.reject, jobs["cat"]: Mark.reject}
    assert controller.calls[-1] == ("mark", ([jobs["cat"], jobs["owl"]], Mark.reject))


def test_every_picture_found_is_marked_after_saying_how_many(
    library, ledger, jobs, monkeypatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(
        library_view, "confirm", lambda _parent, _title, text, **_kw: asked.append(text) or True
    )
    _found(library, "fox")
    library.scope.setCurrentText(ALL_RESULTS)
    library.star.click()
    assert asked == ["Star the 2 pictures found by 'fox'?"]
    marks = ledger.marks.of(list(jobs.values()))
    assert marks == {jobs["fox"]: Mark.star, jobs["snow"]: Mark.star}


def test_saying_no_marks_nothing(library, ledger, jobs, monkeypatch) -> None:
    monkeypatch.setattr(library_view, "confirm", lambda *_args, **_kw: False)
    library.scope.setCurrentText(ALL_RESULTS)
    library.reject.click()
    assert ledger.marks.of(list(jobs.values())) == {jobs["fox"]: Mark.star}


def test_export_copies_the_selection_with_its_parameters(library, jobs, tmp_path) -> None:
    hits = [hit for hit in library.model.hits() if hit.job_id in _by_name(jobs, "owl", "snow")]
    rows = [library.model.hits().index(hit) for hit in hits]
    library.select_rows(rows)
    copies = library.export_to(library.selected_hits(), tmp_path / "export")
    assert sorted(copy.name for copy in copies) == sorted(hit.path.name for hit in hits)
    for copy in copies:
        with Image.open(copy) as image:
            assert "Seed: " in image.info["parameters"]


def test_trash_moves_the_selection_and_keeps_the_starred(
    library, jobs, tmp_path, monkeypatch
) -> None:
    trash = use_trash(monkeypatch, tmp_path / "data")
    monkeypatch.setattr(library_view, "confirm", lambda *_args, **_kw: True)
    rows = {hit.job_id: row for row, hit in enumerate(library.model.hits())}
    library.select_rows([rows[jobs["fox"]], rows[jobs["owl"]]])
    errors: list[str] = []
    library.failed.connect(errors.append)
    library.ask_trash()
    assert len(list(trash.iterdir())) == 1
    assert {hit.job_id for hit in library.model.hits()} == _by_name(jobs, "fox", "snow", "cat")
    assert errors
    assert "1 stayed" in errors[0]


def test_compare_wants_two_selected(library, jobs, qtbot) -> None:
    assert not library.compare.isEnabled()
    library.select_rows([0, 1])
    assert library.compare.isEnabled()
    hits = library.model.hits()
    with qtbot.waitSignal(library.compare_requested) as signal:
        library.compare.click()
    first, second = signal.args
    assert (first.job_id, second.job_id) == (hits[0].job_id, hits[1].job_id)


def test_the_selection_is_told_by_its_jobs(library, jobs, qtbot) -> None:
    """The window's details and job actions follow the library's selection, as the sheet's."""
    hits = library.model.hits()
    with qtbot.waitSignal(library.selection_changed) as signal:
        library.select_rows([1, 2])
    assert signal.args[0] == [hits[1].job_id, hits[2].job_id]

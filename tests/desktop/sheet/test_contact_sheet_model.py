"""Tests for desktop.sheet.contact_sheet_model: the cells filtered by mark."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel

from core.controller.commands import LedgerCommands
from core.ledger.marks import Mark
from desktop.sheet.contact_sheet import ContactSheetWidget
from desktop.sheet.contact_sheet_model import MarkFilter
from tests.desktop.conftest import make_jobs


def sheet_of(qtbot, ledger, thumbnails, batch: str) -> ContactSheetWidget:
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch], {}, batch)
    return sheet


def select(sheet: ContactSheetWidget, job_ids: list[str]) -> None:
    view = sheet.current_view()
    view.selectionModel().clearSelection()
    for job_id in job_ids:
        index = sheet.model.index_of(job_id)
        view.selectionModel().select(index, QItemSelectionModel.SelectionFlag.Select)
    view.setFocus()


def labels(sheet: ContactSheetWidget) -> list[str]:
    return [sheet.model.index(row, 0).data() for row in range(sheet.model.rowCount())]


def test_the_filter_shows_the_cells_of_one_mark(qtbot, preset_name, ledger, thumbnails) -> None:
    ids = make_jobs(ledger, preset_name, 4)
    ledger.marks.set([ids[1]], Mark.star)
    ledger.marks.set([ids[2]], Mark.reject)
    sheet = sheet_of(qtbot, ledger, thumbnails, ledger.job(ids[0]).batch)
    expected = {
        MarkFilter.starred: ["seed 1"],
        MarkFilter.rejected: ["seed 2"],
        MarkFilter.unmarked: ["seed 0", "seed 3"],
        MarkFilter.all: [
            "seed 0",
            "seed 1",
            "seed 2",
            "seed 3",
        ],
    }
    for choice, shown in expected.items():
        sheet.mark_filter.setCurrentIndex(sheet.mark_filter.findData(choice))
        assert labels(sheet) == shown, choice
    sheet.mark_filter.setCurrentIndex(sheet.mark_filter.findData(MarkFilter.starred))
    select(sheet, [ids[1]])
    sheet.star.trigger()  # unstarred: it leaves the starred view
    assert labels(sheet) == []
    sheet.stop()


def test_a_grid_with_pages_passes_qts_model_checks_on_every_page(
    qtbot, qtmodeltester, tmp_path, ledger, thumbnails
) -> None:
    from tests.core.pictures.test_grid_pages import THREE_AXES, grid_jobs

    batch, ids = grid_jobs(ledger, THREE_AXES, seeds=(1, 2))
    sheet = sheet_of(qtbot, ledger, thumbnails, batch)
    model = sheet.model
    shown: list[int] = []
    model.page_shown.connect(shown.append)
    assert model.page_titles() == [
        "Load Image · image render_a, KSampler · seed 1",
        "Load Image · image render_a, KSampler · seed 2",
        "Load Image · image render_b, KSampler · seed 1",
        "Load Image · image render_b, KSampler · seed 2",
    ]
    seen: set[str] = set()
    for page in range(4):
        model.set_page(page)
        qtmodeltester.check(model)
        on_page = {model.job_id_at(model.index(r, c)) for r in range(2) for c in range(2)}
        assert all(model.page_of(job) == page for job in on_page)
        seen |= on_page
    assert seen == set(ids)
    assert shown == [1, 2, 3]
    model.set_page(9)  # no such page: nothing
    model.set_page(3)  # the one shown: nothing
    assert (model.page, shown) == (3, [1, 2, 3])
    sheet.stop()

"""An X/Y grid batch in the contact sheet: a labelled grid, exported as one picture."""

from __future__ import annotations

import pytest
from PIL import Image
from PySide6.QtCore import Qt

from core.controller.commands import LedgerCommands
from desktop.sheet.contact_sheet import ContactSheetWidget
from desktop.sheet.contact_sheet_model import JOB_ROLE, PATH_ROLE, STATUS_ROLE
from tests.core.pictures.test_grid_sheet import grid_batch


def headers(sheet: ContactSheetWidget, orientation: Qt.Orientation) -> list[str]:
    count = (
        sheet.model.columnCount()
        if orientation == Qt.Orientation.Horizontal
        else sheet.model.rowCount()
    )
    return [
        sheet.model.headerData(n, orientation, Qt.ItemDataRole.DisplayRole) for n in range(count)
    ]


def test_a_grid_batch_shows_its_axes_on_the_edges_and_exports_one_picture(
    qtbot, tmp_path, ledger, thumbnails
) -> None:
    batch, _ids = grid_batch(ledger, tmp_path)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch], {}, batch)
    assert sheet.views.currentWidget() is sheet.grid_view
    assert headers(sheet, Qt.Orientation.Horizontal) == ["0.1", "0.5", "0.9"], "values alone"
    assert headers(sheet, Qt.Orientation.Vertical) == ["64", "128"]
    assert "strength" in sheet.axes.text()
    assert "width" in sheet.axes.text()
    corner = sheet.model.index(1, 2)
    params = corner.data(JOB_ROLE).params
    assert (params["2.strength"], params["1.width"]) == (0.9, 128)
    assert corner.data(STATUS_ROLE) == ("failed: out of memory", "failed")
    assert corner.data() == "", "the edges say the values; one seed needs no label"
    assert not sheet.export_grid.isHidden()
    told: list[str] = []
    sheet.notice.connect(told.append)
    (written,) = sheet.export_grid_to(tmp_path / "grids")
    assert list((tmp_path / "grids").iterdir()) == [written]
    with Image.open(written) as picture:
        assert picture.width > picture.height > 0
    assert told == [f"Wrote {written.name} in {tmp_path / 'grids'}"]
    sheet.stop()


def test_a_plain_batch_has_no_grid_export(qtbot, ledger, preset_name, thumbnails) -> None:
    from tests.desktop.conftest import make_jobs

    ids = make_jobs(ledger, preset_name, 2)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([ledger.job(ids[0]).batch], {}, None)
    assert sheet.views.currentWidget() is sheet.list_view
    assert sheet.export_grid.isHidden()
    sheet.stop()


def test_exports_start_in_the_batchs_folder_under_the_windows_output_folder(
    qtbot, tmp_path, ledger, preset_name, thumbnails
) -> None:
    from tests.desktop.conftest import make_jobs

    ids = make_jobs(ledger, preset_name, 1)
    batch = ledger.job(ids[0]).batch
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.model.output_dir = tmp_path / "demo outputs"  # the demo's, not the settings'
    sheet.set_batches([batch], {}, batch)
    assert sheet.default_folder() == tmp_path / "demo outputs" / batch
    sheet.stop()


def test_a_grid_batch_scrolls_in_its_own_view_not_the_whole_pane(
    qtbot, tmp_path, ledger, thumbnails
) -> None:
    """In the window the sheet sits in a scroll area (for tiny screens); with a grid batch on
    a short pane (200 % scale) that area used to scroll too, beside the grid's own bar."""
    from desktop.window.main_window import _scrolled

    batch, _ids = grid_batch(ledger, tmp_path)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    area = _scrolled(sheet)
    qtbot.addWidget(area)
    area.resize(390, 300)
    area.show()
    sheet.set_batches([batch], {}, batch)
    qtbot.waitUntil(lambda: sheet.views.currentWidget() is sheet.grid_view)
    qtbot.waitUntil(lambda: sheet.height() == area.viewport().height())
    assert area.verticalScrollBar().maximum() == 0
    assert sheet.grid_view.verticalScrollBar().maximum() > 0, "the grid scrolls itself"
    sheet.stop()


def test_a_colour_grid_says_its_values_as_colours_on_the_edges_and_in_the_viewer(
    qtbot, tmp_path, ledger, thumbnails
) -> None:
    from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
    from core.ledger import PresetContent
    from core.pictures.picture_facts import batch_values, picture_facts
    from core.presets import workflow_hash
    from tests.core.helpers import NOISE_WORKFLOW

    ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
    spec = BatchSpec(seeds=SeedPlan(count=2), grid=(GridAxis("1.color", ("#FF0000", "#00FF00")),))
    batch, ids = queue_batch(ledger, "noise", spec)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch.id], {}, batch.id)
    qtbot.waitUntil(lambda: sheet.model.columnCount() == 2)
    assert headers(sheet, Qt.Orientation.Horizontal) == ["#FF0000", "#00FF00"]
    facts = picture_facts(ledger, ids[0], batch_values(ledger, batch.id))
    assert facts.colours == frozenset({"1.color"})
    sheet.stop()


def shown_params(sheet: ContactSheetWidget) -> list[dict]:
    model = sheet.model
    return [
        model.index(row, column).data(JOB_ROLE).params
        for row in range(model.rowCount())
        for column in range(model.columnCount())
        if model.index(row, column).data(JOB_ROLE) is not None
    ]


def shown_renders(sheet: ContactSheetWidget) -> set[str]:
    return {params["10.image"]["picture"]["file"] for params in shown_params(sheet)}


def page_items(sheet: ContactSheetWidget) -> list[str]:
    return [sheet.pages.itemText(n) for n in range(sheet.pages.count())]


def test_a_three_axis_batch_shows_one_page_at_a_time_chosen_by_keyboard(
    qtbot, tmp_path, ledger, thumbnails
) -> None:
    from tests.core.pictures.test_grid_pages import three_axis_batch

    batch, _ids = three_axis_batch(ledger, tmp_path)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    with qtbot.waitActive(sheet):
        sheet.show()
        sheet.activateWindow()
    sheet.set_batches([batch], {}, batch)
    assert sheet.views.currentWidget() is sheet.grid_view
    assert sheet.page_row.isVisible()
    assert page_items(sheet) == ["Load Image · image render_a", "Load Image · image render_b"]
    assert sheet.axes.text() == "→ KSampler · cfg   ↓ KSampler · steps   pages: Load Image · image"
    assert headers(sheet, Qt.Orientation.Horizontal) == ["4", "7"]
    assert headers(sheet, Qt.Orientation.Vertical) == ["10", "20"]
    assert len(shown_params(sheet)) == 4
    assert shown_renders(sheet) == {"render_a.png"}
    assert sheet.model.index(0, 0).data() == "", "the edges and the page say it all"
    sheet.pages.setFocus()
    qtbot.keyClick(sheet.pages, Qt.Key.Key_Down)
    assert sheet.model.page == 1
    assert shown_renders(sheet) == {"render_b.png"}
    assert len(shown_params(sheet)) == 4
    sheet.grid_view.setFocus()
    qtbot.keyClick(sheet.grid_view, Qt.Key.Key_BracketRight)  # round to the first
    assert (sheet.model.page, sheet.pages.currentIndex()) == (0, 0)
    assert shown_renders(sheet) == {"render_a.png"}
    qtbot.keyClick(sheet.grid_view, Qt.Key.Key_BracketLeft)
    assert (sheet.model.page, sheet.pages.currentText()) == (1, "Load Image · image render_b")
    sheet.stop()


def test_the_page_chosen_stays_when_pictures_arrive_and_jobs_are_added(
    qtbot, tmp_path, ledger, thumbnails
) -> None:
    from core.ledger import NewJob
    from tests.core.pictures.test_grid_pages import THREE_AXES, grid_jobs, succeed_with

    batch, ids = grid_jobs(ledger, THREE_AXES)
    other, _ = grid_jobs(ledger, THREE_AXES)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch, other], {}, batch)
    sheet.pages.setCurrentIndex(1)
    assert shown_renders(sheet) == {"render_b.png"}
    on_page = [job for job in ids if sheet.model.index_of(job).isValid()]
    assert len(on_page) == 4
    off_page = next(job for job in ids if job not in on_page)
    assert not sheet.model.index_of(off_page).isValid()
    succeed_with(ledger, tmp_path, on_page[0], "p0", (1, 2, 3))
    sheet.update_jobs([ledger.job(on_page[0])])
    assert sheet.model.page == 1
    assert sheet.model.index_of(on_page[0]).data(PATH_ROLE) == str(tmp_path / f"{on_page[0]}.png")
    # One more job, of another seed: the batch is read again, the seeds make pages now.
    params = dict(ledger.job(on_page[0]).params, **{"3.seed": 2})
    (added,) = ledger.add_jobs(batch, [NewJob(params)])
    sheet.update_jobs([ledger.job(added)])
    assert page_items(sheet) == [
        "Load Image · image render_a, KSampler · seed 1",
        "Load Image · image render_b, KSampler · seed 1",
        "Load Image · image render_b, KSampler · seed 2",
    ]
    assert (sheet.model.page, sheet.pages.currentText()) == (
        1,
        "Load Image · image render_b, KSampler · seed 1",
    )
    sheet.pages.setCurrentIndex(2)
    sheet.show_batch(batch)  # shown again as it is
    assert sheet.pages.currentText() == "Load Image · image render_b, KSampler · seed 2"
    sheet.show_batch(other)
    assert (sheet.model.page, sheet.pages.currentText()) == (0, "Load Image · image render_a")
    sheet.stop()


def test_a_job_chosen_elsewhere_brings_its_page(qtbot, tmp_path, ledger, thumbnails) -> None:
    from tests.core.pictures.test_grid_pages import RENDERS, THREE_AXES, grid_jobs

    batch, ids = grid_jobs(ledger, THREE_AXES)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch], {}, batch)
    told: list[list[str]] = []
    sheet.selection_changed.connect(told.append)
    second = next(job for job in ids if ledger.job(job).params["10.image"] == RENDERS[1])
    sheet.select_jobs([second])
    assert (sheet.model.page, sheet.pages.currentIndex()) == (1, 1)
    assert sheet.selected_job_ids() == [second]
    assert told == [], "selecting from outside says nothing back"
    sheet.pages.setCurrentIndex(0)
    assert sheet.selected_job_ids() == []
    assert told == [[]], "the selection went with the page"
    sheet.stop()


def test_a_zipped_pair_shows_as_one_axis(qtbot, tmp_path, ledger, thumbnails) -> None:
    from tests.core.pictures.test_grid_pages import grid_jobs

    grid = (
        ("3.sampler_name", ("euler", "dpmpp_2m")),
        ("3.scheduler", ("normal", "karras")),
        ("3.cfg", (4, 7)),
    )
    batch, ids = grid_jobs(ledger, grid, zips=[["3.sampler_name", "3.scheduler"]])
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch], {}, batch)
    assert headers(sheet, Qt.Orientation.Horizontal) == ["euler · normal", "dpmpp_2m · karras"]
    assert headers(sheet, Qt.Orientation.Vertical) == ["4", "7"]
    assert (
        sheet.axes.text() == "→ KSampler · sampler_name + KSampler · scheduler   ↓ KSampler · cfg"
    )
    assert sheet.page_row.isHidden()
    assert not sheet.next_page.isEnabled()
    assert len(shown_params(sheet)) == len(ids) == 4
    for column, (sampler, scheduler) in enumerate((("euler", "normal"), ("dpmpp_2m", "karras"))):
        params = sheet.model.index(1, column).data(JOB_ROLE).params
        assert (params["3.sampler_name"], params["3.scheduler"], params["3.cfg"]) == (
            sampler,
            scheduler,
            7,
        )
    sheet.stop()


def test_the_export_of_a_three_axis_grid_writes_a_picture_per_page(
    qtbot, tmp_path, ledger, thumbnails
) -> None:
    from tests.core.pictures.test_grid_pages import three_axis_batch

    batch, _ids = three_axis_batch(ledger, tmp_path, seeds=(1, 2))
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch], {}, batch)
    assert len(page_items(sheet)) == 4
    told: list[str] = []
    sheet.notice.connect(told.append)
    written = sheet.export_grid_to(tmp_path / "grids")
    assert [path.name for path in written] == [
        f"{batch}_grid_image-render_a_seed-1.png",
        f"{batch}_grid_image-render_a_seed-2.png",
        f"{batch}_grid_image-render_b_seed-1.png",
        f"{batch}_grid_image-render_b_seed-2.png",
    ]
    assert sorted((tmp_path / "grids").iterdir()) == written
    assert told == [
        f"Wrote 4 grid pictures, one per page, in {tmp_path / 'grids'} ({written[0].name} …)"
    ]
    sheet.stop()


LONG_SCHEDULERS = (
    "karras with a very long name the workflow gave it",
    "exponential and then some more words",
    "sgm_uniform",
)


def long_grid(ledger, columns: int = 5) -> str:
    from tests.core.pictures.test_grid_pages import grid_jobs

    cfgs = tuple(float(4 + n) for n in range(columns))
    batch, _ids = grid_jobs(
        ledger, (("3.cfg", cfgs), ("3.scheduler", LONG_SCHEDULERS)), seeds=(0, 1)
    )
    return batch


@pytest.mark.parametrize("width", [620, 900])  # the sheet's pane in a 1366x768 window
def test_at_1366x768_the_row_header_is_bounded_and_every_column_fits(
    qtbot, ledger, thumbnails, width
) -> None:
    from desktop.sheet.contact_sheet import MIN_CELL, ROW_HEADER_SHARE

    batch = long_grid(ledger)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.resize(width, 560)
    sheet.show()
    qtbot.waitExposed(sheet)
    sheet.set_batches([batch], {}, batch)
    view = sheet.grid_view
    qtbot.waitUntil(lambda: sheet.model.columnCount() == 5)
    rows = headers(sheet, Qt.Orientation.Vertical)
    assert rows[0] == "karras with a very long…", "the row's value alone, no other input"
    assert not any("seed" in row for row in rows)
    header = view.verticalHeader()
    qtbot.waitUntil(lambda: header.width() <= view.width() * ROW_HEADER_SHARE + 1)
    assert header.width() > 40, "the values still have room"
    qtbot.waitUntil(lambda: view.horizontalScrollBar().maximum() == 0)
    last = view.horizontalHeader().sectionViewportPosition(4) + view.columnWidth(4)
    assert last <= view.viewport().width(), "all five columns in view"
    assert view.columnWidth(0) >= MIN_CELL
    tip = sheet.model.headerData(0, Qt.Orientation.Vertical, Qt.ItemDataRole.ToolTipRole)
    assert tip == f"KSampler · scheduler: {LONG_SCHEDULERS[0]}", "the tooltip has it whole"
    assert "KSampler · scheduler" in sheet.axes.text(), "the axis is named once, above"
    sheet.stop()


def test_the_grid_zooms_with_ctrl_wheel_and_keys_and_scrolls_beyond_the_pane(
    qtbot, ledger, thumbnails
) -> None:
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    from desktop.sheet.contact_sheet import MIN_CELL, ZOOM_MIN

    batch = long_grid(ledger)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.resize(900, 560)
    sheet.show()
    qtbot.waitExposed(sheet)
    sheet.set_batches([batch], {}, batch)
    view = sheet.grid_view
    qtbot.waitUntil(lambda: sheet.model.columnCount() == 5)
    assert sheet.zoom.isVisible()
    fitted = view.columnWidth(0)

    def wheel(delta: int) -> None:
        centre = QPointF(view.viewport().rect().center())
        event = QWheelEvent(
            centre,
            QPointF(view.viewport().mapToGlobal(centre.toPoint())),
            QPoint(),
            QPoint(0, delta),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.ControlModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(view.viewport(), event)

    wheel(120)
    wheel(120)
    assert sheet.zoom.value() == 150
    assert view.columnWidth(0) == fitted * 3 // 2
    qtbot.waitUntil(lambda: view.horizontalScrollBar().maximum() > 0, timeout=2000)
    assert view.verticalScrollBar().value() == 0, "Ctrl+wheel zooms, it does not scroll"
    sheet.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert sheet.zoom.value() == 125, "- zooms out"
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    assert sheet.zoom.value() == 150, "+ zooms in"
    sheet.zoom.setValue(ZOOM_MIN)
    assert view.columnWidth(0) == MIN_CELL, "never smaller than the least cell"
    sheet.stop()

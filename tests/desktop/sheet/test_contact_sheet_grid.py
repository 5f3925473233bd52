"""An X/Y grid batch in the contact sheet: a labelled grid, exported as one picture."""

from __future__ import annotations

from PIL import Image
from PySide6.QtCore import Qt

from core.controller.commands import LedgerCommands
from desktop.sheet.contact_sheet import ContactSheetWidget
from desktop.sheet.contact_sheet_model import JOB_ROLE, STATUS_ROLE
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
    assert headers(sheet, Qt.Orientation.Horizontal) == [
        "strength 0.1",
        "strength 0.5",
        "strength 0.9",
    ]
    assert headers(sheet, Qt.Orientation.Vertical) == ["width 64", "width 128"]
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
    assert headers(sheet, Qt.Orientation.Horizontal) == ["color #FF0000", "color #00FF00"]
    facts = picture_facts(ledger, ids[0], batch_values(ledger, batch.id))
    assert facts.colours == frozenset({"1.color"})
    sheet.stop()

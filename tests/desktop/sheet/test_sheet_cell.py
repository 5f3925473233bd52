"""Tests for desktop.sheet.sheet_cell: a cell's label whole (a random 64-bit seed on two lines
or a little smaller, never cut), what a cell tells assistive technology, and the ring that
shows the keyboard's place."""

from __future__ import annotations

from PIL import Image
from PySide6.QtCore import QItemSelectionModel, QRect, Qt
from PySide6.QtGui import QAccessible, QColor, QFont, QImage, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QListView, QStyleOptionViewItem

from core.controller.status import Progress
from core.ledger import NewJob
from core.ledger.marks import Mark
from desktop.sheet.contact_sheet_model import LABEL_LINES_ROLE
from desktop.sheet.sheet_cell import FOCUS_COLOUR, SheetCellDelegate, label_lines
from tests.core.helpers import fail_job, run_job, succeed_job

BIG_SEED = 18446744073709551615  # 2**64 - 1: a random seed of ComfyUI's range


def shown_at_laptop_size(window, qtbot) -> None:
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    window.show_pictures()


def option_of(view, index) -> QStyleOptionViewItem:
    option = QStyleOptionViewItem()
    view.initViewItemOption(option)
    option.rect = view.visualRect(index)
    return option


def test_a_random_64_bit_seed_is_readable_in_full(window, ledger, preset_name, qtbot) -> None:
    """Seen: "seed 1844674407370…", the rest of the seed cut off in every cell."""
    jobs = [NewJob({"3.seed": BIG_SEED}), NewJob({"3.seed": 7})]
    _batch, (job, _seven) = ledger.create_batch(preset_name, jobs, requester="tester")
    shown_at_laptop_size(window, qtbot)
    qtbot.waitUntil(lambda: window.sheet.model.rowCount() == 2)
    view = window.sheet.list_view
    index = window.sheet.model.index_of(job)
    assert index.data() == f"seed {BIG_SEED}"
    assert view.visualRect(index).width() < view.fontMetrics().horizontalAdvance(index.data())
    font, lines = view.itemDelegate().label_of(option_of(view, index), index)
    assert " ".join(lines) == f"seed {BIG_SEED}", "whole, on two lines"
    assert font.pointSizeF() >= 0.8 * view.font().pointSizeF()
    assert str(BIG_SEED) in index.data(Qt.ItemDataRole.ToolTipRole)
    assert str(BIG_SEED) in index.data(Qt.ItemDataRole.AccessibleTextRole)
    short = window.sheet.model.index(1, 0)
    assert view.itemDelegate().label_of(option_of(view, short), short)[1] == ["seed 7"]


def test_a_label_laid_out_once_follows_its_text_font_and_width(qtbot) -> None:
    """Laying a label out, word by word, was most of a cell's paint (12 ms a screen of 16
    scrolling the library); the delegate keeps each one, for its text, font and width."""
    text = "Fox portrait · cfg × 3 seeds · cfg 8.0 · seed 1234567890"
    model = QStandardItemModel()
    item = QStandardItem(text)
    item.setData(2, LABEL_LINES_ROLE)
    model.appendRow(item)
    view = QListView()
    view.setModel(model)
    qtbot.addWidget(view)
    delegate, index = SheetCellDelegate(view), model.index(0, 0)
    option = QStyleOptionViewItem()
    option.font, option.rect = QFont(view.font()), QRect(0, 0, 144, 190)
    wide = delegate.label_of(option, index)
    assert wide == label_lines(text, option.font, 140, 2)
    assert delegate.label_of(option, index) == wide
    option.rect = QRect(0, 0, 84, 190)
    assert delegate.label_of(option, index) == label_lines(text, option.font, 80, 2) != wide
    option.font.setPointSizeF(option.font.pointSizeF() * 2)  # the sheet zoomed, or 200 %
    assert delegate.label_of(option, index) == label_lines(text, option.font, 80, 2)
    item.setText("seed 7")  # a batch renamed, a job retried
    assert delegate.label_of(option, index) == label_lines("seed 7", option.font, 80, 2)


def test_each_cell_tells_assistive_technology_its_label_state_and_mark(
    window, controller, ledger, preset_name, qtbot, tmp_path
) -> None:
    from tests.desktop.conftest import make_jobs

    done, failed, running, waiting = make_jobs(ledger, preset_name, 4)
    picture = tmp_path / "done.png"
    Image.new("RGB", (32, 32), (90, 90, 90)).save(picture)
    succeed_job(ledger, done, [str(picture)])
    ledger.marks.set([done], Mark.star)
    fail_job(ledger, failed)
    run_job(ledger, running)
    shown_at_laptop_size(window, qtbot)
    model = window.sheet.model
    qtbot.waitUntil(lambda: model.rowCount() == 4)
    controller.push(progress={running: Progress(4, 10)}, positions={running: 0})

    def said(job_id: str, role=Qt.ItemDataRole.AccessibleTextRole) -> str:
        return model.index_of(job_id).data(role)

    assert said(done) == "seed 0, succeeded, starred"
    assert said(failed) == "seed 1, failed: out of memory"
    assert said(running) == "seed 2, running 40 %"
    assert said(waiting).startswith("seed 3, ")
    assert "out of memory" in said(failed, Qt.ItemDataRole.AccessibleDescriptionRole)
    # What Qt hands a screen reader: the cell's accessible name is that text.
    view = window.sheet.list_view
    interface = QAccessible.queryAccessibleInterface(view)
    names = {interface.child(n).text(QAccessible.Text.Name) for n in range(interface.childCount())}
    assert "seed 1, failed: out of memory" in names, names


def test_a_grid_cell_says_where_it_sits(qtbot, tmp_path, ledger, thumbnails) -> None:
    from core.controller.commands import LedgerCommands
    from desktop.sheet.contact_sheet import ContactSheetWidget
    from tests.core.pictures.test_grid_sheet import grid_batch

    batch, _ids = grid_batch(ledger, tmp_path)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch], {}, batch)
    grid = sheet.model.grid
    assert grid is not None
    said = sheet.model.index(1, 2).data(Qt.ItemDataRole.AccessibleTextRole)
    assert said == f"{grid.column_tips[2]}, {grid.row_tips[1]}, failed: out of memory"
    assert grid.column_tips[2].endswith(": 0.9")
    sheet.stop()


def test_the_current_cell_has_a_ring_while_the_sheet_has_the_keyboard(
    window, ledger, preset_name, qtbot
) -> None:
    from tests.desktop.conftest import make_jobs

    ids = make_jobs(ledger, preset_name, 3)
    shown_at_laptop_size(window, qtbot)
    model = window.sheet.model
    qtbot.waitUntil(lambda: model.rowCount() == 3)
    view = window.sheet.list_view
    current = model.index_of(ids[1])
    view.selectionModel().setCurrentIndex(current, QItemSelectionModel.SelectionFlag.NoUpdate)
    window.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)

    def cell() -> QImage:
        return view.viewport().grab(view.visualRect(current)).toImage()

    focused = cell()
    ring = focused.pixelColor(5, focused.height() // 2)  # on the ring's left side
    assert ring == QColor(FOCUS_COLOUR), ring.name()
    window.composer.setFocus()
    qtbot.waitUntil(lambda: not view.hasFocus())
    unfocused = cell()
    assert unfocused != focused, "no ring without the keyboard"
    assert unfocused.pixelColor(5, focused.height() // 2) != QColor(FOCUS_COLOUR)

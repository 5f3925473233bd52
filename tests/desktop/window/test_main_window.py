"""The main window with a fake controller: status, queueing, selection, details, banners."""

from __future__ import annotations

from pathlib import Path

from PIL import Image
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from core.controller.status import Connection, Progress
from core.job_state import JobState
from core.ledger import JobRecord
from core.ledger.marks import Mark
from desktop.jobs.job_table_model import Column
from desktop.presets.preset_files import add_preset_file
from desktop.sheet.contact_sheet_model import STATUS_ROLE
from desktop.window.main_window import MainWindow
from tests.core.finished_pictures import finished
from tests.core.helpers import run_job, succeed_job
from tests.desktop.conftest import TXT2IMG, make_jobs
from tests.desktop.helpers import answer_question, shown_ampersands, until
from tests.desktop.sheet.library_pictures import fill_library
from tests.trash_home import use_trash


def test_starts_on_the_first_preset(window, preset_name) -> None:
    assert window.presets.current_name() == preset_name
    assert window.composer.isEnabled()
    assert window.composer.queue_button.text() == "Queue 40 jobs"


def test_queue_shows_the_jobs_and_status_updates_them(window, controller, ledger, qtbot) -> None:
    window.composer.seeds.count.setValue(3)
    window.composer.queue_button.click()
    assert window.model.rowCount() == 3
    first = window.model.job_at(0).id
    controller.push(
        connection=Connection.connected,
        server_queue=2,
        in_flight=1,
        positions={first: 0},
        progress={first: Progress(5, 20)},
    )
    assert window.status.connection.text() == "● Connected"
    assert window.model.index(0, Column.progress).data() == "5/20"
    run_job(ledger, first)
    qtbot.waitUntil(lambda: window.model.job_at(0).state is JobState.running)
    assert window.filter_bar.count.text().startswith("3 of 3 jobs")


def test_selection_shows_details_and_enables_actions(window, ledger, qtbot, qloop) -> None:
    window.composer.seeds.count.setValue(2)
    window.composer.queue_button.click()
    job_id = window.model.job_at(1).id
    window.select_job(job_id)
    assert window.details.job_id() == job_id
    assert window.job_actions.cancel.isEnabled()
    window.job_actions.cancel.trigger()
    qloop.run_until_complete(until(lambda: window.controller.calls[-1] == ("cancel", [job_id])))
    ledger.request_cancel(job_id)
    qtbot.waitUntil(lambda: "Cancelled" in window.details.header.text())
    assert not window.job_actions.cancel.isEnabled()
    assert window.job_actions.retry.isEnabled()


def test_a_picture_chosen_in_the_library_shows_its_job(window, ledger, tmp_path) -> None:
    """Seen on a real ComfyUI: the Details pane stayed on "Select a job" when a library
    picture was clicked; it follows the library's selection as it follows the sheet's."""
    jobs = fill_library(ledger, tmp_path / "lib")
    window.model.refresh()
    window.show_library()
    library = window.library
    row = next(n for n, hit in enumerate(library.model.hits()) if hit.job_id == jobs["owl"])
    library.select_rows([row])
    assert window.details.job_id() == jobs["owl"]
    assert [job.id for job in window.table.selected_jobs()] == [jobs["owl"]]  # what acts on


def test_notices_move_nothing_and_go_away(window, qtbot) -> None:
    window.show()
    qtbot.waitExposed(window)
    button = window.composer.queue_button
    before = button.mapTo(window, QPoint(0, 0))
    window.show_error("the server refused")
    qtbot.wait(50)
    assert window.banner.isVisible()
    assert button.mapTo(window, QPoint(0, 0)) == before
    assert window.banner.testAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
    window.show_banner("Batch b finished: 3 succeeded")
    qtbot.wait(50)
    assert button.mapTo(window, QPoint(0, 0)) == before
    assert window.banner.geometry().bottom() <= window.centralWidget().height()
    window.banner.dismiss()
    assert window.banner.isHidden()


def test_every_control_has_an_accessible_name_or_label(window) -> None:
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QAbstractSpinBox,
        QComboBox,
        QHeaderView,
        QLineEdit,
    )

    unnamed = [
        widget
        for widget in window.findChildren(QWidget)
        if isinstance(widget, QAbstractItemView | QComboBox | QLineEdit)
        and not widget.accessibleName()
        and widget.isVisibleTo(window)
        and not isinstance(widget, QHeaderView)
        and not isinstance(widget.parent(), QComboBox | QAbstractSpinBox)
    ]
    buttons = [
        b for b in window.findChildren(QAbstractButton) if not (b.text() or b.accessibleName())
    ]
    assert [f"{type(w).__name__}:{w.parent().objectName()}" for w in unnamed] == []
    assert [type(b).__name__ for b in buttons if b.isVisibleTo(window)] == []


def test_only_batches_ending_while_open_are_announced(qtbot, ledger, controller, tmp_path):
    name = add_preset_file(ledger, TXT2IMG).name
    old = make_jobs(ledger, name, 1)
    succeed_job(ledger, old[0], [])
    window = MainWindow(ledger, controller, thumbnail_dir=tmp_path / "thumbs")
    qtbot.addWidget(window)
    window.notifier._tray = None  # the in-app banner, whatever the platform offers
    window.start()
    qtbot.waitUntil(lambda: not window.model.loading)
    assert window.banner.isHidden(), window.banner.text()
    new = make_jobs(ledger, name, 1)
    succeed_job(ledger, new[0], [])
    qtbot.waitUntil(lambda: not window.banner.isHidden())
    assert window.banner.text().endswith(": 1 done")
    window.close()


def test_the_library_shows_pictures_as_they_finish(qtbot, ledger, controller, tmp_path):
    window = MainWindow(ledger, controller, thumbnail_dir=tmp_path / "thumbs")
    qtbot.addWidget(window)
    jobs = fill_library(ledger, tmp_path / "out")
    window.start()
    qtbot.waitUntil(lambda: not window.model.loading)
    window.show_library()
    assert window.library.model.rowCount() == len(jobs)
    _, (new,) = finished(ledger, tmp_path / "out", [{"3.seed": 5}], name="Just now")
    qtbot.waitUntil(lambda: window.library.model.rowCount() == len(jobs) + 1)
    assert window.library.model.hits()[0].job_id == new
    window.close()


def test_the_window_fits_a_small_screen(window) -> None:
    room = window.screen().availableGeometry()  # the offscreen platform's screen: 800 x 800
    window.fit_to_screen(5000, 5000)
    assert window.width() <= room.width()
    assert window.height() <= room.height()
    window.fit_to_screen(400, 300)
    assert (window.width(), window.height()) == (400, 300), "the preferred size when it fits"


def test_pending_rows_say_they_wait_for_the_server(window, controller) -> None:
    controller.push(connection=Connection.offline, server="http://gpu:8188")
    window.composer.seeds.count.setValue(1)
    window.composer.queue_button.click()
    assert window.model.index(0, Column.position).data() == "waiting for the server"


def test_no_label_shows_a_mnemonic_ampersand(window) -> None:
    assert shown_ampersands(window) == []


def test_one_name_for_a_validation_error_everywhere(window, ledger, preset_name, qtbot) -> None:
    from core.job_state import Reason
    from tests.core.helpers import fail_job

    (job_id,) = make_jobs(ledger, preset_name, 1)
    fail_job(ledger, job_id, Reason.validation_error)
    window.model.refresh()
    qtbot.waitUntil(lambda: window.model.rowCount() == 1)
    qtbot.waitUntil(lambda: window.model.job_at(0).state is JobState.failed)
    window.select_job(job_id)
    row = window.model.row_of(job_id)
    assert window.model.index(row, Column.reason).data() == "validation error"
    tip = window.model.index(row, Column.state).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("validation error in KSampler (node 3): ")  # the error, in short
    assert "— validation error ·" in window.details.header.text()
    attempts = window.details.attempts
    texts = [
        attempts.index(r, c).data()
        for r in range(attempts.rowCount())
        for c in range(attempts.columnCount())
    ]
    assert "validation error" in texts


def test_a_drop_target_shows_while_a_workflow_is_dragged_over(
    window, qtbot, ledger, preset_copy, tmp_path
) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    window.show()
    qtbot.waitExposed(window)

    def mime(path) -> QMimeData:
        data = QMimeData()
        data.setUrls([QUrl.fromLocalFile(str(path))])
        return data

    def enter(data: QMimeData) -> QDragEnterEvent:
        event = QDragEnterEvent(
            QPoint(50, 50),
            Qt.DropAction.CopyAction,
            data,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(window, event)
        return event

    notes = tmp_path / "notes.txt"
    notes.write_text("hello", encoding="utf-8")
    enter(mime(notes))
    assert window.drop_overlay.isHidden(), "not a workflow: no drop target"
    workflow = mime(preset_copy)
    assert enter(workflow).isAccepted()
    assert window.drop_overlay.isVisible()
    assert window.drop_overlay.text() == "Drop to add fox.json as a preset"
    assert window.drop_overlay.geometry().width() > window.centralWidget().width() * 0.9
    QApplication.sendEvent(window, QDragLeaveEvent())
    assert window.drop_overlay.isHidden()
    enter(workflow)
    drop = QDropEvent(
        QPointF(50, 50),
        Qt.DropAction.CopyAction,
        workflow,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, drop)
    assert window.drop_overlay.isHidden()
    assert "fox" in ledger.presets.names()


def test_a_job_goes_back_to_the_composer_from_the_table(window, ledger, qtbot) -> None:
    window.composer.seeds.count.setValue(2)
    window.composer.queue_button.click()
    job = window.model.job_at(1)
    assert not window.job_actions.send_to_composer.isEnabled(), "no job selected"
    window.composer.seeds.count.setValue(5)
    window.select_job(job.id)
    assert window.job_actions.send_to_composer.isEnabled()
    assert window.job_actions.send_to_composer in window.table.actions()
    window.job_actions.send_to_composer.trigger()
    assert window.composer.seeds.plan().values == (job.params["3.seed"],)


def test_a_contact_sheet_cell_sends_its_job_to_the_composer(window, ledger, qtbot) -> None:
    window.composer.seeds.count.setValue(2)
    window.composer.queue_button.click()
    job = window.model.job_at(1)
    qtbot.waitUntil(lambda: window.sheet.model.index_of(job.id).isValid())
    view = window.sheet.list_view
    view.setCurrentIndex(window.sheet.model.index_of(job.id))
    assert window.job_actions.use_seed in view.actions()
    window.composer.seeds.count.setValue(5)
    window.job_actions.use_seed.trigger()
    assert window.composer.seeds.plan().values == (job.params["3.seed"],)


def one_finished_job(window, ledger, qtbot, tmp_path) -> tuple[JobRecord, Path]:
    """A batch of one queued from the composer, succeeded with a real picture, shown done in
    the sheet; the job and its picture."""
    window.composer.seeds.count.setValue(1)
    window.composer.queue_button.click()
    job = window.model.job_at(0)
    picture = tmp_path / "picture.png"
    Image.new("RGB", (16, 16), "red").save(picture)
    succeed_job(ledger, job.id, [str(picture)])
    cell = window.sheet.model.index_of(job.id)
    qtbot.waitUntil(lambda: cell.data(STATUS_ROLE) == ("", "done"))
    return job, picture


def test_the_details_drop_a_picture_the_sheet_moved_to_the_trash(
    window, ledger, qtbot, tmp_path, monkeypatch
) -> None:
    use_trash(monkeypatch, tmp_path / "data")
    job, picture = one_finished_job(window, ledger, qtbot, tmp_path)
    window.select_job(job.id)
    qtbot.waitUntil(lambda: window.details.outputs.rowCount() == 1)
    ledger.marks.set([job.id], Mark.reject)
    window.sheet.refresh_job(job.id)
    assert window.sheet.trash_rejected.isEnabled()
    answer_question(QMessageBox.StandardButton.Yes, [])
    window.sheet.trash_rejected.click()
    assert not picture.exists()
    assert window.details.outputs.rowCount() == 0


def test_the_jobs_menu_reaches_the_shown_batchs_pictures(
    window, ledger, qtbot, tmp_path, monkeypatch
) -> None:
    use_trash(monkeypatch, tmp_path / "data")
    starred, trash, grid = window.sheet.picture_actions
    assert {starred, trash, grid} <= set(window.menus[2].actions())
    assert not any(action.isEnabled() for action in (starred, trash, grid))  # no batch yet
    job, picture = one_finished_job(window, ledger, qtbot, tmp_path)
    assert starred.isEnabled()
    assert not trash.isEnabled()
    assert not grid.isEnabled(), "a seed batch has no grid"
    ledger.marks.set([job.id], Mark.reject)
    window.sheet.refresh_job(job.id)
    assert trash.isEnabled()
    asked: list[str] = []
    answer_question(QMessageBox.StandardButton.Yes, asked)
    trash.trigger()
    assert len(asked) == 1
    assert not picture.exists()
    assert not trash.isEnabled()


def test_the_jobs_table_shows_a_named_batch_by_its_name(window, qtbot, ledger, preset_name):
    job_id = make_jobs(ledger, preset_name, 2)[0]
    batch = ledger.job(job_id).batch
    ledger.name_batch(batch, "fox study")
    window.model.refresh()
    qtbot.waitUntil(lambda: window.model.rowCount() == 2)
    window.refresh_batches()
    cell = window.model.index(window.model.row_of(job_id), Column.batch)
    assert cell.data() == "fox study"
    assert cell.data(Qt.ItemDataRole.ToolTipRole).startswith(f"Batch fox study ({batch})")
    ledger.name_batch(batch, "")
    window.refresh_batches()
    assert cell.data() == preset_name, "a batch without a name: its preset and what varies"


def test_a_banner_shows_a_name_as_typed(window) -> None:
    """A batch named like a prompt with a LoRA tag must not vanish into rich text."""
    window.show_banner("Queued 4 jobs as <lora:fox:0.8> <b>study</b>.")
    assert window.banner.textFormat() == Qt.TextFormat.PlainText
    assert window.banner.text() == "Queued 4 jobs as <lora:fox:0.8> <b>study</b>."


def test_a_sheet_click_selects_its_job_under_a_table_filter_that_hides_it(
    window, ledger, preset_name, qtbot
) -> None:
    """Filtered on Failed in the Table tab, a click on a pending job's picture still selects it
    (details, actions), and the sheet says the filter is on."""
    from PySide6.QtCore import QItemSelectionModel

    from desktop.jobs.job_filter_bar import STATE_CHOICES

    ids = make_jobs(ledger, preset_name, 3)
    from tests.core.helpers import fail_job

    fail_job(ledger, ids[0])
    qtbot.waitUntil(lambda: window.sheet.model.rowCount() == 3)
    qtbot.waitUntil(lambda: window.model.job_at(0).state is JobState.failed)
    failed = next(i for i, (text, _s) in enumerate(STATE_CHOICES) if text == "Failed")
    window.filter_bar.states.setCurrentIndex(failed)
    assert window.proxy.rowCount() == 1
    assert not window.sheet.table_filter.isHidden()
    assert window.sheet.table_filter.text() == (
        "Table filter on: State = Failed — not applied to these pictures"
    )
    view = window.sheet.list_view
    view.selectionModel().select(
        window.sheet.model.index_of(ids[2]), QItemSelectionModel.SelectionFlag.ClearAndSelect
    )
    assert [job.id for job in window.table.selected_jobs()] == [ids[2]]
    assert window.details.job_id() == ids[2]
    assert window.job_actions.cancel.isEnabled()
    view.selectionModel().select(
        window.sheet.model.index_of(ids[0]), QItemSelectionModel.SelectionFlag.ClearAndSelect
    )
    assert window.details.job_id() == ids[0]
    assert window.job_actions.retry.isEnabled()
    assert window.proxy.rowCount() == 1, "the pending job let through no more"
    window.filter_bar.states.setCurrentIndex(0)
    assert window.sheet.table_filter.isHidden()

"""The contact sheet in the window: one live cell per job, selection shared with the table."""

from __future__ import annotations

from PIL import Image
from PySide6.QtCore import QItemSelectionModel, Qt

from core.controller.previews import FOLDER
from core.controller.status import Progress, ServerStatus
from core.job_state import JobState
from desktop.sheet.contact_sheet_model import (
    JOB_ROLE,
    PICTURE_ROLE,
    PROGRESS_ROLE,
    STATUS_ROLE,
)
from tests.core.helpers import fail_job, run_job, succeed_job
from tests.desktop.conftest import make_jobs


def cells(window) -> list[str]:
    model = window.sheet.model
    return [model.index(row, 0).data() for row in range(model.rowCount())]


def status(window, job_id: str) -> tuple[str, str]:
    return window.sheet.model.index_of(job_id).data(STATUS_ROLE)


def shown_batch(window, qtbot, count: int) -> None:
    qtbot.waitUntil(lambda: window.sheet.model.rowCount() == count)


def picture(path, colour) -> str:
    Image.new("RGB", (64, 48), colour).save(path)
    return str(path)


def centre(pixmap) -> tuple[int, int, int]:
    image = pixmap.toImage()
    pixel = image.pixelColor(image.width() // 2, image.height() // 2)
    return pixel.red(), pixel.green(), pixel.blue()


def test_the_pictures_tab_comes_first_and_shows_the_new_batch(window, ledger, qtbot) -> None:
    assert window.middle.currentWidget().isAncestorOf(window.sheet)
    assert window.middle.tabText(1) == "T&able"
    window.composer.seeds.count.setValue(3)
    window.composer.queue_button.click()
    batch = window.model.job_at(0).batch
    shown_batch(window, qtbot, 3)
    assert window.sheet.batch_id() == batch
    labels = cells(window)
    assert all(label.startswith("seed ") for label in labels), labels
    seeds = [int(label.split()[-1]) for label in labels]
    assert seeds == sorted(seeds), "cells in seed order"
    assert not any("job" in label for label in labels), "never job numbers"


def test_cells_follow_the_jobs_as_they_move(
    window, controller, ledger, preset_name, qtbot, tmp_path
) -> None:
    waiting, running, done, failed, cancelled = make_jobs(ledger, preset_name, 5)
    shown_batch(window, qtbot, 5)
    assert cells(window) == [f"seed {n}" for n in range(5)]
    window.sheet.refresh_estimate()
    assert status(window, waiting) == ("#1 in line", "muted")
    assert status(window, cancelled) == ("#5 in line", "muted")

    run_job(ledger, running)
    window.model.read_chunk()  # the feed: the places follow soon
    assert status(window, running) == ("running", "active")
    qtbot.waitUntil(lambda: status(window, waiting) == ("#2 in line", "muted"))  # behind it
    assert status(window, cancelled) == ("#5 in line", "muted")
    assert window.sheet.model.index_of(running).data(PROGRESS_ROLE) == -1.0  # no figure yet
    controller.push(progress={running: Progress(3, 10)}, positions={running: 0})
    assert window.sheet.model.index_of(running).data(PROGRESS_ROLE) == 0.3
    server = ServerStatus("http://127.0.0.1:9", queue=3)  # ours running, 2 others' prompts
    controller.push(positions={running: 0}, server_queue=3, servers=(server,))
    qtbot.waitUntil(lambda: status(window, waiting) == ("#4 in line", "muted"))
    server = ServerStatus("http://127.0.0.1:9", queue=1)
    controller.push(positions={running: 0}, server_queue=1, servers=(server,))
    ledger.submit_attempt(waiting, "p-waiting", "http://127.0.0.1:9", "wf")
    ledger.observe_queued("p-waiting", 2)
    controller.push(positions={running: 0, waiting: 1}, server_queue=2, servers=(server,))
    # Next in ComfyUI, behind the running one: the second to run, counted as "#N in line" is.
    qtbot.waitUntil(lambda: status(window, waiting) == ("in ComfyUI · #2", "muted"))

    succeed_job(ledger, done, [picture(tmp_path / "done.png", (200, 30, 30))])
    qtbot.waitUntil(lambda: status(window, done) == ("", "done"))
    qtbot.waitUntil(lambda: window.sheet.model.index_of(done).data(PICTURE_ROLE) is not None)
    assert window.sheet.model.index_of(done).data(PICTURE_ROLE).width() <= 160

    fail_job(ledger, failed)
    qtbot.waitUntil(lambda: status(window, failed) == ("failed: out of memory", "failed"))

    ledger.request_cancel(cancelled)
    qtbot.waitUntil(lambda: status(window, cancelled)[1] == "cancelled")
    window.sheet.refresh_estimate()
    assert status(window, waiting) == ("in ComfyUI · #2", "muted"), "behind the running one"
    assert (
        "1 of 5 done · 1 failed · 1 cancelled · 1 running" in window.sheet.progress.summary.text()
    )


def test_a_preview_frame_reaches_the_running_cell(
    window, controller, ledger, preset_name, qtbot
) -> None:
    (job,) = make_jobs(ledger, preset_name, 1)
    run_job(ledger, job)
    shown_batch(window, qtbot, 1)
    qtbot.waitUntil(lambda: status(window, job)[0] == "running")
    folder = ledger.folder / FOLDER
    folder.mkdir(exist_ok=True)
    picture(folder / f"{job}.png", (20, 200, 20))  # as the controller writes it
    controller.push(previews={job: 1})

    def shown() -> tuple[int, int, int] | None:
        preview = window.sheet.model.index_of(job).data(PICTURE_ROLE)
        return None if preview is None else centre(preview)

    qtbot.waitUntil(lambda: shown() == (20, 200, 20))  # read off the GUI thread
    picture(folder / f"{job}.png", (20, 20, 200))
    controller.push(previews={job: 2})
    qtbot.waitUntil(lambda: shown() == (20, 20, 200))
    controller.push(previews={})
    assert window.sheet.model.index_of(job).data(PICTURE_ROLE) is None


def test_the_sheet_and_the_table_share_the_selection(window, ledger, preset_name, qtbot) -> None:
    ids = make_jobs(ledger, preset_name, 4)
    shown_batch(window, qtbot, 4)
    qtbot.waitUntil(lambda: window.model.rowCount() == 4)
    view = window.sheet.list_view
    model = window.sheet.model
    view.selectionModel().select(
        model.index_of(ids[1]), QItemSelectionModel.SelectionFlag.ClearAndSelect
    )
    view.selectionModel().select(model.index_of(ids[2]), QItemSelectionModel.SelectionFlag.Select)
    assert [job.id for job in window.table.selected_jobs()] == ids[1:3]
    assert window.details.job_id() == ids[2]
    assert window.job_actions.cancel.isEnabled()
    assert window.job_actions.cancel in view.actions()

    window.select_job(ids[3])
    assert window.sheet.selected_job_ids() == [ids[3]]
    assert [index.data(JOB_ROLE).id for index in view.selectedIndexes()] == [ids[3]]


def test_the_table_selecting_another_batchs_job_shows_that_batch(
    window, ledger, preset_name, qtbot
) -> None:
    first = make_jobs(ledger, preset_name, 2)
    second = make_jobs(ledger, preset_name, 3)
    qtbot.waitUntil(lambda: window.model.rowCount() == 5)
    qtbot.waitUntil(lambda: window.sheet.batch_id() == ledger.job(second[0]).batch)
    window.select_job(first[1])
    assert window.sheet.batch_id() == ledger.job(first[0]).batch
    assert window.sheet.selected_job_ids() == [first[1]]
    assert [job.id for job in window.table.selected_jobs()] == [first[1]]
    window.sheet.progress.batch.setCurrentIndex(0)  # the artist shows the newer batch
    assert window.sheet.batch_id() == ledger.job(second[0]).batch
    assert window.table.selected_jobs() == [], "no action on a job out of sight"
    assert window.details.job_id() is None


def test_opening_a_cell_asks_for_its_job(window, ledger, preset_name, qtbot) -> None:
    ids = make_jobs(ledger, preset_name, 2)
    shown_batch(window, qtbot, 2)
    opened: list[str] = []
    window.sheet.open_requested.connect(opened.append)
    view = window.sheet.list_view
    view.setCurrentIndex(window.sheet.model.index_of(ids[1]))
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert opened == [ids[1]]


def test_a_cancelled_job_stays_in_its_place(window, ledger, preset_name, qtbot) -> None:
    ids = make_jobs(ledger, preset_name, 3)
    shown_batch(window, qtbot, 3)
    ledger.request_cancel(ids[0])
    qtbot.waitUntil(
        lambda: window.sheet.model.index_of(ids[0]).data(JOB_ROLE).state is JobState.cancelled
    )
    assert window.sheet.model.index_of(ids[0]).row() == 0


def test_an_sdxl_grid_is_titled_by_the_composers_names(qtbot, tmp_path, ledger, thumbnails) -> None:
    """The sheet's door: its axis titles read as the composer's labels."""
    from core.controller.commands import LedgerCommands
    from desktop.sheet.contact_sheet import ContactSheetWidget
    from tests.core.presets.test_input_names import BASE_PROMPT, REFINER_PROMPT, sdxl_grid_batch

    batch, _ids = sdxl_grid_batch(ledger, tmp_path)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch], {}, batch)
    assert sheet.axes.text() == f"→ {BASE_PROMPT}   ↓ {REFINER_PROMPT}"
    sheet.stop()


def along_the_sheet(window) -> list[str]:
    """The shown cells' jobs, in the order they read (a plain batch: the list's)."""
    model = window.sheet.model
    return [model.index(row, 0).data(JOB_ROLE).id for row in range(model.rowCount())]


def test_the_places_in_line_read_in_order_along_the_sheet(window, ledger, preset_name, qtbot):
    """Seen: the sheet sorted the seeds by number while the jobs go out in the order the seeds
    were given, so the places in line came out scattered (#2, #3, #1)."""
    from core.batch import BatchSpec, SeedMode, SeedPlan, queue_batch

    spec = BatchSpec(SeedPlan(SeedMode.explicit, values=(30, 10, 20)))
    _batch, ids = queue_batch(ledger, preset_name, spec)
    shown_batch(window, qtbot, 3)
    assert along_the_sheet(window) == ids
    window.sheet.refresh_estimate()
    places = [status(window, job) for job in along_the_sheet(window)]
    assert places == [(f"#{n} in line", "muted") for n in (1, 2, 3)]


def test_a_retry_that_succeeded_in_its_originals_cell_is_no_failure(
    qtbot, tmp_path, ledger, thumbnails
) -> None:
    from core.batch import queue_smaller
    from core.controller.commands import LedgerCommands
    from desktop.sheet.contact_sheet import ContactSheetWidget
    from tests.core.pictures.test_grid_sheet import grid_batch

    batch, ids = grid_batch(ledger, tmp_path)
    failed = next(job_id for job_id in ids if ledger.job(job_id).state is JobState.failed)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    sheet.set_batches([batch], {}, batch)
    assert sheet.progress.summary.text() == "5 of 6 done · 1 failed"
    retry = queue_smaller(ledger, failed, shrink=["size"])
    sheet.update_jobs([ledger.job(retry)])
    waits = sheet.progress.summary.text()
    assert waits.startswith("5 of 6 done"), waits
    assert "failed" not in waits, "the retry waits in its original's place"
    succeed_job(ledger, retry, [picture(tmp_path / "retry.png", (0, 0, 200))])
    sheet.update_jobs([ledger.job(retry)])
    sheet.stop()
    assert sheet.progress.summary.text() == "6 of 6 done"
    assert [colour for _width, colour in sheet.progress.bar.parts()] == [
        sheet.progress.bar.palette().highlight().color()
    ]

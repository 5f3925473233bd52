"""Marks in the contact sheet: 1 stars, 0 rejects, kept in the ledger; the filter by mark; the
starred pictures exported, the rejected ones moved to the trash."""

from __future__ import annotations

import json

from PIL import Image
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtWidgets import QMessageBox

from core.controller.commands import LedgerCommands
from core.ledger import Ledger
from core.ledger.marks import Mark
from core.ledger.settings import EXPORT_SIDECAR
from desktop.sheet.contact_sheet import ContactSheetWidget
from desktop.sheet.contact_sheet_model import MARK_ROLE, PICTURE_ROLE, STATUS_ROLE
from tests.core.helpers import succeed_job
from tests.desktop.conftest import make_jobs
from tests.desktop.helpers import answer_question
from tests.trash_home import use_trash


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


def test_keys_mark_the_selected_cells_and_the_marks_survive_reopening(
    qtbot, tmp_path, preset_name, ledger, thumbnails
) -> None:
    ids = make_jobs(ledger, preset_name, 4)
    batch = ledger.job(ids[0]).batch
    sheet = sheet_of(qtbot, ledger, thumbnails, batch)
    with qtbot.waitActive(sheet):
        sheet.show()
        sheet.activateWindow()
    select(sheet, ids[:2])
    qtbot.keyClick(sheet.list_view, Qt.Key.Key_1)
    select(sheet, [ids[3]])
    qtbot.keyClick(sheet.list_view, Qt.Key.Key_0)
    assert sheet.model.index_of(ids[0]).data(MARK_ROLE) == Mark.star
    select(sheet, [ids[1]])
    qtbot.keyClick(sheet.list_view, Qt.Key.Key_1)  # again: unmarked
    sheet.close()
    ledger.close()
    with Ledger(tmp_path / "ledger") as reopened:
        assert reopened.marks.in_batch(batch) == {ids[0]: Mark.star, ids[3]: Mark.reject}
        again = sheet_of(qtbot, reopened, thumbnails, batch)
        marks = [again.model.index_of(job).data(MARK_ROLE) for job in ids]
        assert marks == [Mark.star, None, None, Mark.reject]
        again.stop()


def test_export_starred_copies_the_starred_pictures(
    qtbot, tmp_path, preset_name, ledger, thumbnails
) -> None:
    ids = make_jobs(ledger, preset_name, 3)
    pictures = []
    for n, job_id in enumerate(ids):
        path = tmp_path / f"picture-{n}.png"
        Image.new("RGB", (32, 32), (n * 100, 0, 0)).save(path)
        succeed_job(ledger, job_id, [str(path)])
        pictures.append(path)
    sheet = sheet_of(qtbot, ledger, thumbnails, ledger.job(ids[0]).batch)
    select(sheet, [ids[0], ids[2]])
    sheet.star.trigger()
    told: list[str] = []
    sheet.notice.connect(told.append)
    out = tmp_path / "chosen"
    copies = sheet.export_starred_to(out)
    assert sorted(p.name for p in out.iterdir()) == ["picture-0.png", "picture-2.png"]
    for copy, picture in zip(copies, (pictures[0], pictures[2]), strict=True):
        with Image.open(copy) as copied, Image.open(picture) as original:
            assert copied.tobytes() == original.tobytes()
            seed = ledger.job(ids[0 if picture is pictures[0] else 2]).params["3.seed"]
            assert f"Seed: {seed}," in copied.info["parameters"]
    assert told == [f"Copied 2 starred pictures to {out}"]
    assert sorted(out.iterdir()) == sorted(copies), "no sidecar unless set"
    EXPORT_SIDECAR.set(ledger, True)
    again = sheet.export_starred_to(tmp_path / "with sidecars")
    sidecars = [copy.with_suffix(".json") for copy in again]
    assert [json.loads(s.read_text("utf-8"))["job"] for s in sidecars] == [ids[0], ids[2]]
    sheet.stop()


def test_a_mark_or_a_trashed_picture_from_the_viewer_shows_in_the_cell(
    qtbot, tmp_path, preset_name, ledger, thumbnails
) -> None:
    (job,) = make_jobs(ledger, preset_name, 1)
    path = tmp_path / "picture.png"
    Image.new("RGB", (32, 32), "red").save(path)
    succeed_job(ledger, job, [str(path)])
    sheet = sheet_of(qtbot, ledger, thumbnails, ledger.job(job).batch)
    assert sheet.model.index_of(job).data(STATUS_ROLE) == ("", "done")
    ledger.marks.set([job], Mark.reject)  # as the viewer does
    path.unlink()
    sheet.refresh_job(job)
    assert sheet.model.index_of(job).data(MARK_ROLE) == Mark.reject
    assert sheet.model.index_of(job).data(STATUS_ROLE) == ("deleted", "cancelled")
    sheet.stop()


def test_trash_rejected_asks_once_then_moves_the_rejected_pictures(
    qtbot, tmp_path, monkeypatch, preset_name, ledger, thumbnails
) -> None:
    trash = use_trash(monkeypatch, tmp_path / "data")
    ids = make_jobs(ledger, preset_name, 5)
    batch = ledger.job(ids[0]).batch
    ledger.name_batch(batch, "Forest")
    pictures = [tmp_path / f"picture-{n}.png" for n in range(4)]
    pictures.append(tmp_path / ("x" * 250 + ".png"))  # no room for the trash's ".trashinfo"
    for job_id, path in zip(ids, pictures, strict=True):
        Image.new("RGB", (32, 32), "red").save(path)
        succeed_job(ledger, job_id, [str(path)])
    sheet = sheet_of(qtbot, ledger, thumbnails, batch)
    told: list[str] = []
    failed: list[str] = []
    sheet.notice.connect(told.append)
    sheet.failed.connect(failed.append)
    assert not sheet.trash_rejected.isEnabled()
    select(sheet, [ids[1]])
    sheet.reject.trigger()
    assert sheet.trash_rejected.isEnabled()
    sheet.reject.trigger()  # again: unmarked
    assert not sheet.trash_rejected.isEnabled()
    select(sheet, [ids[1], ids[2], ids[4]])
    sheet.reject.trigger()
    select(sheet, [ids[3]])
    sheet.star.trigger()
    assert sheet.trash_rejected.isEnabled()

    asked: list[str] = []
    answer_question(QMessageBox.StandardButton.Cancel, asked)
    sheet.trash_rejected.click()
    assert asked == [
        "Move the 3 rejected pictures of Forest to the trash?\nTheir jobs stay in the history."
    ]
    assert all(path.exists() for path in pictures)
    assert (told, failed) == ([], [])

    answer_question(QMessageBox.StandardButton.Yes, asked)
    sheet.trash_rejected.click()
    assert len(asked) == 2
    assert sorted(p.name for p in trash.iterdir()) == ["picture-1.png", "picture-2.png"]
    assert [path.exists() for path in pictures] == [True, False, False, True, True]
    statuses = [sheet.model.index_of(job).data(STATUS_ROLE) for job in ids]
    assert statuses == [("", "done"), *[("deleted", "cancelled")] * 2, ("", "done"), ("", "done")]
    assert told == []
    assert failed == [
        f"Moved 2 rejected pictures to the trash; 1 could not go ({pictures[4].name}: "
        "File name too long)."
    ]
    assert sheet.trash_rejected.isEnabled(), "the one that could not go is still there"
    assert [job.id for job in ledger.jobs(batch=batch)] == ids  # the history keeps them
    pictures[4].unlink()
    sheet.refresh_job(ids[4])
    assert not sheet.trash_rejected.isEnabled()

    select(sheet, [ids[0]])
    sheet.reject.trigger()
    answer_question(QMessageBox.StandardButton.Yes, asked)
    sheet.trash_rejected.click()
    assert (
        asked[2]
        == "Move the rejected picture of Forest to the trash?\nIts job stays in the history."
    )
    assert told == ["Moved 1 rejected picture to the trash."]
    assert len(failed) == 1
    assert sheet.model.index_of(ids[0]).data(STATUS_ROLE) == ("deleted", "cancelled")
    assert not sheet.trash_rejected.isEnabled()
    sheet.stop()


def test_a_big_batch_is_read_off_the_gui_thread_and_a_newer_choice_wins(
    qtbot, monkeypatch, preset_name, ledger, thumbnails
) -> None:
    import desktop.sheet.contact_sheet_model as sheet_model

    monkeypatch.setattr(sheet_model, "READ_AT_ONCE", 3)
    big = make_jobs(ledger, preset_name, 5)
    small = make_jobs(ledger, preset_name, 2)
    sheet = ContactSheetWidget(ledger, thumbnails, LedgerCommands(ledger))
    qtbot.addWidget(sheet)
    batch = ledger.job(big[0]).batch
    sheet.show_batch(batch)
    assert sheet.model.rowCount() == 0, "read in a worker: its result comes through the loop"
    qtbot.waitUntil(lambda: sheet.model.rowCount() == 5)
    assert labels(sheet) == [f"seed {n}" for n in range(5)]
    sheet.show_batch(ledger.job(big[0]).batch)
    sheet.show_batch(ledger.job(small[0]).batch)  # chosen before the big one was read
    qtbot.wait(200)
    assert sheet.batch_id() == ledger.job(small[0]).batch
    assert labels(sheet) == ["seed 0", "seed 1"]
    sheet.stop()


def test_a_starred_selected_cell_still_shows_its_picture(
    qtbot, tmp_path, preset_name, ledger, thumbnails
) -> None:
    (job,) = make_jobs(ledger, preset_name, 1)
    path = tmp_path / "red.png"
    Image.new("RGB", (64, 64), (200, 30, 30)).save(path)
    succeed_job(ledger, job, [str(path)])
    sheet = sheet_of(qtbot, ledger, thumbnails, ledger.job(job).batch)
    sheet.resize(500, 400)
    sheet.show()
    index = sheet.model.index_of(job)
    qtbot.waitUntil(lambda: index.data(PICTURE_ROLE) is not None)
    select(sheet, [job])
    sheet.star.trigger()
    centre = sheet.list_view.visualRect(index).center()
    image = sheet.list_view.viewport().grab().toImage()
    pixel = image.pixelColor(centre.x(), centre.y() - 10)
    assert (pixel.red(), pixel.green(), pixel.blue()) == (200, 30, 30), (
        "the badge's brush veiled it"
    )
    sheet.stop()


def test_an_export_to_a_file_says_why_in_one_line(
    qtbot, tmp_path, preset_name, ledger, thumbnails
) -> None:
    (job,) = make_jobs(ledger, preset_name, 1)
    path = tmp_path / "picture.png"
    Image.new("RGB", (8, 8)).save(path)
    succeed_job(ledger, job, [str(path)])
    ledger.marks.set([job], Mark.star)
    sheet = sheet_of(qtbot, ledger, thumbnails, ledger.job(job).batch)
    failures: list[str] = []
    sheet.failed.connect(failures.append)
    not_a_folder = tmp_path / "a file"
    not_a_folder.write_text("")
    assert sheet.export_starred_to(not_a_folder / "inside") == []
    assert failures == [f"Could not export to {not_a_folder / 'inside'}: Not a directory"]
    sheet.stop()

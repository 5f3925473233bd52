"""The picture viewer over pictures the simulator made: stepping through a batch, fit and zoom,
the picture's values and what the artist does with it."""

from __future__ import annotations

from pathlib import Path

from PIL import Image
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox

from core.batch import BatchSpec, GridAxis, SeedMode, SeedPlan, queue_batch, queue_smaller
from core.batch.batch_title import batch_title
from core.batch.prompt import prompt_for
from core.job_state import JobState, Reason
from core.ledger import Ledger, NewJob
from core.ledger.marks import Mark
from core.pictures.pictures import Picture, job_outputs
from core.pictures.search import search
from desktop.presets.preset_files import add_preset_file
from desktop.sheet.contact_sheet_model import JOB_ROLE
from desktop.viewer.viewer import PictureViewer
from tests.core.helpers import succeed_job
from tests.desktop.conftest import GRADIENT
from tests.desktop.sheet.library_pictures import fill_library
from tests.desktop.viewer.viewer_batch import SEEDS, run_batch
from tests.trash_home import use_trash


def answer(button: QMessageBox.StandardButton) -> list[str]:
    """Press ``button`` in the next modal question, once it shows; the questions answered."""
    asked: list[str] = []

    def press() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            asked.append(box.text())
            box.button(button).click()
        else:
            QTimer.singleShot(10, press)

    QTimer.singleShot(0, press)
    return asked


def test_the_arrow_keys_step_through_the_batch_in_seed_order(qtbot, viewer, ledger, batch):
    assert viewer.isVisible()
    seen = [(viewer.current().job_id, viewer.facts.seeds)]
    for _ in range(3):  # the last Right stays on the last picture
        qtbot.keyClick(viewer, Qt.Key.Key_Right)
        seen.append((viewer.current().job_id, viewer.facts.seeds))
    assert seen == [(job, {"3.seed": seed}) for job, seed in zip(batch, SEEDS, strict=True)] + [
        seen[-1]
    ]
    assert viewer.panel.seed.text() == "Seed 702"
    qtbot.keyClick(viewer, Qt.Key.Key_Home)
    assert viewer.current().job_id == batch[0]
    qtbot.keyClick(viewer, Qt.Key.Key_End)
    assert viewer.current().job_id == batch[2]
    qtbot.keyClick(viewer, Qt.Key.Key_Left)
    assert viewer.current().job_id == batch[1]
    qtbot.waitUntil(lambda: "× " in viewer.panel.facts.text())
    width, height = viewer.canvas.picture_size()
    assert f"{width} × {height} px" in viewer.panel.facts.text()
    title = batch_title(ledger, ledger.batch(ledger.job(batch[1]).batch))
    assert title.endswith(" · 3 seeds")
    assert f"2 of 3 · {title}" in viewer.panel.facts.text(), "the batch by its title"
    ledger.name_batch(ledger.job(batch[1]).batch, "fox study")
    qtbot.keyClick(viewer, Qt.Key.Key_Right)
    assert "3 of 3 · fox study" in viewer.panel.facts.text()
    qtbot.keyClick(viewer, Qt.Key.Key_Escape)
    assert not viewer.isVisible()


def test_pictures_finished_after_opening_come_after_the_last(qtbot, viewer, ledger, batch):
    batch_id = ledger.job(batch[0]).batch
    (later,) = ledger.add_jobs(batch_id, [NewJob({"3.seed": 703})])
    picture = Path(job_outputs(ledger, batch[2])[0]).with_name(f"{later}_0.png")
    Image.new("RGB", (32, 32), "#aa3344").save(picture)
    succeed_job(ledger, later, [str(picture)])
    qtbot.keyClick(viewer, Qt.Key.Key_End)
    assert viewer.current().job_id == later
    assert viewer.facts.seeds == {"3.seed": 703}
    qtbot.waitUntil(lambda: viewer.canvas.picture_size() == (32, 32))
    assert viewer.windowTitle() == f"{picture.name} — {viewer.canvas.zoom():.0%} — Batchline"


def test_queue_again_queues_exactly_that_seed(viewer, window, ledger, batch) -> None:
    viewer.actions_by_name["next"].trigger()
    viewer.panel.buttons["again"].click()
    (new_batch,) = [b for b in ledger.batches() if b.id != ledger.job(batch[0]).batch]
    (new,) = ledger.jobs(batch=new_batch.id)
    assert ledger.job(new.id).params == {"3.seed": SEEDS[1], "3.steps": 7}
    original = ledger.job(batch[1])

    def prompt(job) -> dict:
        workflow = ledger.workflow(ledger.batch(job.batch).workflow_hash)
        return prompt_for(workflow, job.params, "folder")

    assert prompt(new) == prompt(original)
    assert viewer.toast.isVisible()
    assert viewer.toast.text() == (
        f"Queued {new.id} (seed {SEEDS[1]}, the values of {batch[1]}) in {new_batch.id}."
    )
    assert window.controller.calls[-1][0] == "queue_again"  # the commands' path


def test_send_to_composer_fills_the_composers_values(viewer, window, batch) -> None:
    viewer.actions_by_name["last"].trigger()
    viewer.panel.buttons["composer"].click()
    assert window.composer.seeds.plan().values == (SEEDS[2],)
    assert window.composer.values()["3.steps"] == 7


def test_marks_by_key_persist_after_reopening_the_ledger(qtbot, viewer, window, ledger, batch):
    qtbot.keyClick(viewer, Qt.Key.Key_1)
    assert viewer.panel.mark.text() == "★ Starred"
    qtbot.keyClick(viewer, Qt.Key.Key_Right)
    qtbot.keyClick(viewer, Qt.Key.Key_0)
    qtbot.keyClick(viewer, Qt.Key.Key_Right)
    qtbot.keyClick(viewer, Qt.Key.Key_1)
    qtbot.keyClick(viewer, Qt.Key.Key_1)  # again: the star comes off
    assert viewer.panel.mark.text() == "Not marked"
    with Ledger(ledger.folder) as reopened:
        assert reopened.marks.of(batch) == {batch[0]: Mark.star, batch[1]: Mark.reject}
    # Marked elsewhere (the contact sheet, the table) while the viewer was in the background.
    ledger.marks.set([batch[2]], Mark.reject)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(lambda: not viewer.isActiveWindow())
    viewer.activateWindow()
    qtbot.waitUntil(viewer.isActiveWindow)
    assert viewer.panel.mark.text() == "✕ Rejected"
    assert viewer.actions_by_name["reject"].isChecked()


def test_move_to_trash_sends_the_file_there_and_shows_the_next(
    qtbot, viewer, ledger, batch, tmp_path, monkeypatch
) -> None:
    trash = use_trash(monkeypatch, tmp_path / "data")
    (picture,) = (Path(p) for p in job_outputs(ledger, batch[0]))
    answer(QMessageBox.StandardButton.Yes)
    qtbot.keyClick(viewer, Qt.Key.Key_Delete)
    assert not picture.exists()
    assert (trash / picture.name).is_file()
    assert viewer.current().job_id == batch[1]
    assert [p.job_id for p in viewer.pictures] == batch[1:]
    assert job_outputs(ledger, batch[0]) == []
    assert ledger.job(batch[0]).state is JobState.succeeded  # the job is history, kept
    assert viewer.toast.text() == f"Moved {picture.name} to the trash."
    # Cancelled: nothing moves. (The viewer active again first, as the window system makes
    # it once the question has gone: else the key reaches no shortcut, and the answer waited
    # for a question into a later test.)
    viewer.activateWindow()
    qtbot.waitUntil(viewer.isActiveWindow)
    asked = answer(QMessageBox.StandardButton.Cancel)
    qtbot.keyClick(viewer, Qt.Key.Key_Delete)
    assert len(asked) == 1
    assert viewer.current().job_id == batch[1]
    viewer.activateWindow()
    qtbot.waitUntil(viewer.isActiveWindow)
    # Starred: refused before any question, in one line.
    qtbot.keyClick(viewer, Qt.Key.Key_1)
    qtbot.keyClick(viewer, Qt.Key.Key_Delete)
    assert "is starred: take its star off first" in viewer.toast.text()
    assert all(Path(p).exists() for j in batch[1:] for p in job_outputs(ledger, j))


def test_a_trash_that_cannot_be_used_is_one_line(
    qtbot, viewer, ledger, batch, tmp_path, monkeypatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    use_trash(monkeypatch, blocker / "data")
    (picture,) = job_outputs(ledger, batch[0])
    answer(QMessageBox.StandardButton.Yes)
    qtbot.keyClick(viewer, Qt.Key.Key_Delete)
    assert viewer.toast.text() == f"cannot move {picture} to the trash: Not a directory"
    assert viewer.current().job_id == batch[0]


def test_show_in_folder_opens_the_batchs_folder(viewer, ledger, batch, tmp_path, monkeypatch):
    opened: list[str] = []
    monkeypatch.setattr(
        QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True
    )
    viewer.panel.buttons["folder"].click()
    viewer.panel.buttons["open"].click()
    assert not viewer.toast.isVisible(), viewer.toast.text()
    batch_id = ledger.job(batch[0]).batch
    assert Path(opened[0]) == (tmp_path / "out" / batch_id).resolve()
    assert opened[1] == job_outputs(ledger, batch[0])[0]


def test_a_picture_gone_or_that_nothing_opens_is_said(viewer, ledger, batch, monkeypatch):
    (picture,) = (Path(p) for p in job_outputs(ledger, batch[0]))
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)  # no application here
    viewer.panel.buttons["open"].click()
    assert viewer.toast.text() == f"No application here opens {picture}"
    picture.unlink()
    viewer.panel.buttons["open"].click()
    assert viewer.toast.text() == f"{picture} is no longer there"


def test_a_grid_batch_steps_through_each_jobs_pictures_and_shows_the_varied_values(
    qloop, qtbot, window, ledger, simulator, preset_name, tmp_path
) -> None:
    spec = BatchSpec(seeds=SeedPlan(count=2, start=40), grid=(GridAxis("3.cfg", (5.0, 9.0)),))
    ids = run_batch(qloop, ledger, simulator, preset_name, spec, tmp_path / "out")
    window.open_viewer(ids[0])
    viewer = window.viewer
    shown = []
    for _ in ids:
        shown.append((viewer.current().job_id, viewer.facts.seeds["3.seed"], viewer.facts.varied))
        viewer.next()
    assert shown == [
        (ids[0], 40, {"3.cfg": 5.0}),
        (ids[1], 40, {"3.cfg": 9.0}),
        (ids[2], 41, {"3.cfg": 5.0}),
        (ids[3], 41, {"3.cfg": 9.0}),
    ]
    viewer.previous()
    assert viewer.panel.seed.text() == "Seed 41<div style='font-size: 80%'>KSampler · cfg 5.0</div>"
    assert any(title == "Positive prompt · text" for title, _ in viewer.facts.prompts)


def test_a_picture_without_a_seed_offers_to_queue_again_not_with_this_seed(
    qloop, window, ledger, simulator, tmp_path
) -> None:
    name = add_preset_file(ledger, GRADIENT).name
    assert name
    spec = BatchSpec(SeedPlan(SeedMode.keep), grid=(GridAxis("2.blur_radius", (1, 5)),))
    ids = run_batch(qloop, ledger, simulator, name, spec, tmp_path / "out")
    window.open_viewer(ids[0])
    viewer = window.viewer
    assert viewer.facts is not None
    assert not viewer.facts.seeds
    assert viewer.actions_by_name["again"].text() == "&Queue again"
    assert not viewer.actions_by_name["copy_seed"].isEnabled()


def test_a_picture_that_cannot_be_read_says_why(qtbot, window, ledger, preset_name, tmp_path):
    _, (job,) = queue_batch(ledger, preset_name, BatchSpec())
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    succeed_job(ledger, job, [str(broken)])
    window.open_viewer(job)
    canvas = window.viewer.canvas
    qtbot.waitUntil(lambda: canvas.message.startswith(f"cannot read {broken}: "))
    assert not canvas.has_picture()


def test_a_job_without_pictures_says_so(window, ledger, preset_name) -> None:
    _, (job,) = queue_batch(ledger, preset_name, BatchSpec())
    window.open_viewer(job)
    assert window.viewer is None or not window.viewer.isVisible()
    assert window.banner.text() == f"{job} has no pictures to show."


def sheet_cells(window) -> list[str]:
    """The sheet's cells' jobs as they read: row by row, left to right (a grid's page too)."""
    model = window.sheet.model
    found = (
        model.index(row, column).data(JOB_ROLE)
        for row in range(model.rowCount())
        for column in range(model.columnCount())
    )
    return [job.id for job in found if job is not None]


def stepped(viewer) -> list[str]:
    viewer.first()
    seen = [viewer.current().job_id]
    while viewer.index < len(viewer.pictures) - 1:
        viewer.actions_by_name["next"].trigger()  # Right
        seen.append(viewer.current().job_id)
    return seen


def test_the_viewer_steps_through_the_pictures_in_the_sheets_order(
    qtbot, window, ledger, preset_name, tmp_path
) -> None:
    """Seen: the viewer stepped in job order while the sheet showed another one; now both read
    `core.pictures.sheet_order`: seeds as given, a retry after its original, a grid row by
    row."""
    spec = BatchSpec(SeedPlan(SeedMode.explicit, values=(30, 10, 20)))
    _batch, ids = queue_batch(ledger, preset_name, spec)
    ledger.submit_attempt(ids[0], "p-first", "http://x", "wf")
    ledger.observe_running("p-first")
    ledger.observe_failed("p-first", Reason.oom)
    retry = queue_smaller(ledger, ids[0], shrink=["size"])  # the newest job, shown second
    for job_id in (ids[1], ids[2], retry):
        path = tmp_path / f"{job_id}.png"
        Image.new("RGB", (32, 32), (10, 120, 10)).save(path)
        succeed_job(ledger, job_id, [str(path)])
    qtbot.waitUntil(lambda: retry in sheet_cells(window))
    window.open_viewer(ids[1])
    assert stepped(window.viewer) == [retry, ids[1], ids[2]], "not the job order"
    assert [job for job in sheet_cells(window) if job != ids[0]] == [retry, ids[1], ids[2]]

    from tests.core.pictures.test_grid_sheet import grid_batch

    batch, grid_ids = grid_batch(ledger, tmp_path)
    window.model.refresh()
    window.select_job(grid_ids[0])
    assert window.sheet.batch_id() == batch
    window.open_viewer(grid_ids[0])
    failed = [j for j in grid_ids if ledger.job(j).state is JobState.failed]
    in_sheet = [job for job in sheet_cells(window) if job not in failed]
    assert stepped(window.viewer) == in_sheet


# --- the library's pictures, More like this, Pin ---------------------------------------------


def _library_viewer(qtbot, ledger, controller, tmp_path):
    jobs = fill_library(ledger, tmp_path / "lib")
    pictures = [Picture(hit.job_id, hit.path) for hit in search(ledger, "")]
    viewer = PictureViewer(ledger, controller)
    qtbot.addWidget(viewer)
    return viewer, jobs, pictures


def test_the_library_steps_across_batches_in_its_order(qtbot, ledger, controller, tmp_path):
    viewer, jobs, pictures = _library_viewer(qtbot, ledger, controller, tmp_path)
    assert viewer.open_pictures(pictures, 0)
    shown = []
    for _ in pictures:
        shown.append(viewer.current().job_id)
        assert viewer.facts is not None
        assert viewer.facts.job_id == shown[-1]
        viewer.next()
    assert shown == [jobs["cat"], jobs["snow"], jobs["owl"], jobs["fox"]]
    assert viewer.current().job_id == jobs["fox"]  # the last stays
    viewer.toggle_mark(Mark.reject)  # the facts of a library picture's own batch
    assert ledger.marks.of([jobs["fox"]]) == {jobs["fox"]: Mark.reject}


def test_more_like_this_queues_new_seeds_with_the_same_values(qtbot, ledger, controller, tmp_path):
    viewer, _jobs, pictures = _library_viewer(qtbot, ledger, controller, tmp_path)
    viewer.open_pictures(pictures, 3)  # the fox: seed 1042, cfg 7.5
    with qtbot.waitSignal(viewer.queued) as queued:
        viewer.actions_by_name["more"].trigger()
    batch_id, count = queued.args
    new = ledger.jobs(batch=batch_id)
    assert count == len(new) == 4
    assert all(job.params["3.cfg"] == 7.5 for job in new)
    assert len({job.params["3.seed"] for job in new}) == 4
    assert 1042 not in {job.params["3.seed"] for job in new}
    viewer.toast.dismiss()


def test_pin_compares_the_shown_picture_with_the_next(qtbot, ledger, controller, tmp_path):
    viewer, _jobs, pictures = _library_viewer(qtbot, ledger, controller, tmp_path)
    viewer.open_pictures(pictures, 1)
    compare = viewer.pin()
    assert compare is not None
    assert compare.pinned == pictures[1]
    assert compare.current() == pictures[2]
    # Each side says what its picture is, as the library's cells do, not its file's name.
    assert compare.left_name.text().startswith("Pinned: Evening foxes · ")
    assert "seed 7" in compare.left_name.text()
    assert ".png" not in compare.right_name.text() + compare.windowTitle()
    compare.close()

"""Retry smaller asks what to shrink: the batch size when there is one, else the size."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from core.batch.memory_told import MemoryTold
from desktop.jobs.retry_smaller_dialog import RetrySmallerDialog
from desktop.window.main_window import MainWindow
from tests.core.helpers import fail_job
from tests.desktop.conftest import make_jobs

BIG_BATCH = {"size": {"5.width": 1024, "5.height": 768}, "batch size": {"5.batch_size": 4096}}


def test_a_big_batch_is_shrunk_by_default_not_the_width(qtbot) -> None:
    dialog = RetrySmallerDialog("job_1", BIG_BATCH)
    qtbot.addWidget(dialog)
    assert dialog.shrink() == ["batch size"]
    assert dialog.factor() == 0.75
    assert dialog.changes["batch size"].text() == "4,096 → 3,072"
    assert dialog.changes["size"].text() == "1,024 → 768, 768 → 576"
    dialog.percent.setValue(50)
    assert dialog.changes["batch size"].text() == "4,096 → 2,048"
    dialog.boxes["batch size"].setChecked(False)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled(), "nothing chosen: nothing to queue"
    dialog.boxes["size"].setChecked(True)
    assert ok.isEnabled()
    assert dialog.shrink() == ["size"]


def test_without_a_batch_size_the_size_is_shrunk(qtbot) -> None:
    dialog = RetrySmallerDialog("job_1", {"size": {"5.width": 512}, "batch size": {}})
    qtbot.addWidget(dialog)
    assert dialog.shrink() == ["size"]
    assert not dialog.boxes["batch size"].isEnabled()
    assert dialog.changes["batch size"].text() == "nothing to shrink in this workflow"


def test_the_window_asks_then_retries_what_was_chosen(
    qtbot, ledger, controller, preset_name, tmp_path
) -> None:
    window = MainWindow(ledger, controller, thumbnail_dir=tmp_path / "thumbs")
    qtbot.addWidget(window)
    window.start()
    (job_id,) = make_jobs(ledger, preset_name, 1)
    fail_job(ledger, job_id)
    qtbot.waitUntil(lambda: window.model.rowCount() == 1)
    window.model.refresh()
    window.select_job(job_id)
    assert window.job_actions.retry_smaller.isEnabled()
    seen: list[list[str]] = []

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        assert isinstance(dialog, RetrySmallerDialog)
        seen.append(dialog.shrink())
        dialog.percent.setValue(50)
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()

    QTimer.singleShot(0, answer)
    with qtbot.waitSignal(window.job_actions.retried_as):
        window.job_actions.retry_smaller.trigger()
    assert seen == [["size"]], "the preset's batch size is 1: the size is what can shrink"
    assert controller.calls[-1] == ("retry_smaller", (job_id, 0.5, ["size"]))
    window.close()


def test_a_request_of_terabytes_proposes_a_step_that_fits_and_says_the_sizes(qtbot) -> None:
    """The recording's failure: 4,096 pictures of 16384x16384 asked 4 TiB of a 24 GiB server;
    75 % (3,072) would never fit: the step proposed is the one that does."""
    memory = MemoryTold(asked=4 * 2**40, has=24 * 2**30)
    dialog = RetrySmallerDialog("job_1", BIG_BATCH, memory=memory)
    qtbot.addWidget(dialog)
    assert "It needed 4 TiB; the server has 24 GiB." in dialog.intro.text()
    assert dialog.percent.value() == 0.58, "24 GiB of 4 TiB"
    assert dialog.changes["batch size"].text() == "4,096 → 23"
    assert memory.has >= 23 * 2**30, "23 pictures of 1 GiB fit"


def test_a_batch_that_cannot_fit_at_any_size_says_so(qtbot) -> None:
    memory = MemoryTold(asked=64 * 2**30, has=24 * 2**30)
    choices = {"size": {"5.width": 1024}, "batch size": {"5.batch_size": 2}}
    dialog = RetrySmallerDialog("job_1", choices, memory=memory)
    qtbot.addWidget(dialog)
    assert dialog.changes["batch size"].text() == (
        "no smaller batch size will fit: one picture alone needs about 32 GiB"
    )


def test_a_near_miss_keeps_the_usual_step_and_an_unknown_server_says_so(qtbot) -> None:
    near = MemoryTold(asked=2 * 2**30, has=24 * 2**30, in_use=23 * 2**30)
    dialog = RetrySmallerDialog("job_1", BIG_BATCH, memory=near)
    qtbot.addWidget(dialog)
    assert dialog.percent.value() == 75
    unknown = RetrySmallerDialog("job_2", BIG_BATCH, memory=MemoryTold(asked=2**40))
    qtbot.addWidget(unknown)
    assert "the server did not say how much memory it has" in unknown.intro.text()
    assert unknown.percent.value() == 75

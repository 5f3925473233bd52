"""Naming a batch from the window: Jobs › Name batch… on the selected job's batch."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from desktop.jobs.job_table_model import Column
from desktop.window.main_window import MainWindow
from tests.desktop.conftest import make_jobs
from tests.desktop.helpers import answer_name


def name_action(window: MainWindow):
    return next(
        a for a in window.findChildren(type(window.quit_action)) if "Name batch" in a.text()
    )


def test_the_selected_jobs_batch_is_named_and_shown_so(window, ledger, preset_name, qtbot) -> None:
    (job,) = make_jobs(ledger, preset_name, 1)
    batch = ledger.job(job).batch
    qtbot.waitUntil(lambda: window.model.rowCount() == 1)
    window.select_job(job)
    answer_name("Foxes at dusk")
    name_action(window).trigger()
    assert ledger.batch(batch).name == "Foxes at dusk"
    combo = window.filter_bar.batch
    index = combo.findData(batch)
    assert combo.itemText(index) == "Foxes at dusk", "the name, its id in the tooltip"
    assert combo.itemData(index, Qt.ItemDataRole.ToolTipRole) == f"Foxes at dusk ({batch})"
    assert f"Foxes at dusk ({batch})" in window.details.header.text(), "the job shown, too"
    answer_name(None)  # Cancel keeps the name
    name_action(window).trigger()
    assert ledger.batch(batch).name == "Foxes at dusk"
    answer_name("x" * 201)
    name_action(window).trigger()
    assert ledger.batch(batch).name == "Foxes at dusk"
    assert "200" in window.banner.text()


def test_batches_are_listed_by_what_they_vary_and_told_apart(
    window, ledger, preset_name, qtbot
) -> None:
    """Every batch list of the window: the jobs filter, the sheet's batches, the table."""
    spec = BatchSpec(seeds=SeedPlan(count=3))
    first, (job, *_) = queue_batch(ledger, preset_name, spec)
    second, _ = queue_batch(ledger, preset_name, spec)
    grid = BatchSpec(
        grid=(GridAxis("3.cfg", (5, 7)), GridAxis("3.sampler_name", ("euler", "ddim")))
    )
    third, _ = queue_batch(ledger, preset_name, grid)
    qtbot.waitUntil(lambda: window.model.rowCount() == 10)
    window.refresh_batches()
    title = f"{preset_name} · 3 seeds"
    wanted = {first.id: title, second.id: f"{title} #2", third.id: f"{preset_name} · cfg × sampler"}
    for combo in (window.filter_bar.batch, window.sheet.progress.batch):
        for batch_id, label in wanted.items():
            index = combo.findData(batch_id)
            assert combo.itemText(index) == label
            assert combo.itemData(index, Qt.ItemDataRole.ToolTipRole) == f"{label} ({batch_id})"
        combo.setCurrentIndex(combo.findData(second.id))
        assert combo.toolTip() == f"{title} #2 ({second.id})", "the whole title of the one shown"
    cell = window.model.index(window.model.row_of(job), Column.batch)
    assert cell.data() == title
    assert cell.data(Qt.ItemDataRole.ToolTipRole).startswith(f"Batch {title} ({first.id})")


def answer_blank(asked: list[str]) -> None:
    """Note the name dialog's question, empty its text and press OK."""

    def fill() -> None:
        shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, QInputDialog)]
        shown = [dialog for dialog in shown if dialog.isVisible()]
        if not shown:
            QTimer.singleShot(10, fill)
            return
        asked.extend([shown[0].labelText(), shown[0].textValue()])
        shown[0].setTextValue("")
        shown[0].accept()

    QTimer.singleShot(10, fill)


def test_an_empty_name_goes_back_to_the_title(window, ledger, preset_name, qtbot) -> None:
    batch, (job,) = queue_batch(ledger, preset_name, BatchSpec(seeds=SeedPlan(start=42)))
    title = f"{preset_name} · seed 42"
    ledger.name_batch(batch.id, "Fox")
    qtbot.waitUntil(lambda: window.model.rowCount() == 1)
    window.select_job(job)
    asked: list[str] = []
    answer_blank(asked)
    name_action(window).trigger()
    assert asked == [f"Name of {batch.id} (empty: “{title}”):", "Fox"]
    assert ledger.batch(batch.id).name is None
    combo = window.filter_bar.batch
    assert combo.itemText(combo.findData(batch.id)) == title
    assert f"{title} ({batch.id})" in window.details.header.text()

"""Naming a batch from the window: Jobs › Name batch… on the selected job's batch."""

from __future__ import annotations

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
    labels = [window.filter_bar.batch.itemText(i) for i in range(window.filter_bar.batch.count())]
    assert f"Foxes at dusk ({batch})" in labels
    assert f"Foxes at dusk ({batch})" in window.details.header.text(), "the job shown, too"
    answer_name(None)  # Cancel keeps the name
    name_action(window).trigger()
    assert ledger.batch(batch).name == "Foxes at dusk"
    answer_name("x" * 201)
    name_action(window).trigger()
    assert ledger.batch(batch).name == "Foxes at dusk"
    assert "200" in window.banner.text()

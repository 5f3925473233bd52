"""A batch is announced once, with counts, when all its jobs have ended."""

from __future__ import annotations

from core.job_state import Reason
from desktop.common.icon import app_icon
from desktop.window.notifications import BatchNotifier
from tests.desktop.conftest import make_jobs
from tests.desktop.helpers import fail_job, succeed_job


def test_banner_once_when_the_batch_is_over(qtbot, ledger, preset_name) -> None:
    notifier = BatchNotifier(app_icon())
    ids = make_jobs(ledger, preset_name, 2)
    notifier.seed(ledger.jobs())
    succeed_job(ledger, ids[0], [])
    assert notifier.observe(ledger.jobs()) == []
    fail_job(ledger, ids[1], Reason.execution_error)
    with qtbot.waitSignal(notifier.banner) as blocker:
        assert notifier.observe(ledger.jobs()) == [ledger.job(ids[0]).batch]
    assert blocker.args[0].endswith("1 succeeded, 1 failed")
    assert notifier.observe(ledger.jobs()) == []


def test_batches_over_before_start_are_not_announced(qapp, ledger, preset_name) -> None:
    ids = make_jobs(ledger, preset_name, 1)
    succeed_job(ledger, ids[0], [])
    notifier = BatchNotifier(app_icon())
    notifier.seed(ledger.jobs())
    assert notifier.observe(ledger.jobs()) == []


def test_the_window_names_a_finished_batch_by_its_title(qtbot, window, ledger, preset_name):
    """Seen at 1600x1000 on a real ComfyUI: "Batch batch_20261202_0001 finished"; the notice
    calls a batch what the batch lists call it."""
    ids = make_jobs(ledger, preset_name, 1)
    batch = ledger.job(ids[0]).batch
    ledger.name_batch(batch, "Dusk study")
    window.notifier.seed(ledger.jobs())
    succeed_job(ledger, ids[0], [])
    with qtbot.waitSignal(window.notifier.banner) as blocker:
        window.notifier.observe(ledger.jobs())
    assert blocker.args[0] == "Batch Dusk study finished: 1 succeeded"

"""A batch is announced once, with counts, when all its jobs have ended."""

from __future__ import annotations

from core.batch.batch_title import batch_title
from core.job_state import Reason
from desktop.common.icon import app_icon
from desktop.window.notifications import BatchNotifier
from tests.core.helpers import fail_job, succeed_job
from tests.desktop.conftest import make_jobs


def test_banner_once_when_the_batch_is_over(qtbot, ledger, preset_name) -> None:
    notifier = BatchNotifier(app_icon())
    ids = make_jobs(ledger, preset_name, 2)
    notifier.seed(ledger.jobs())
    succeed_job(ledger, ids[0], [])
    assert notifier.observe(ledger.jobs()) == []
    fail_job(ledger, ids[1], Reason.execution_error)
    with qtbot.waitSignal(notifier.banner) as blocker:
        assert notifier.observe(ledger.jobs()) == [ledger.job(ids[0]).batch]
    assert blocker.args[0].endswith(": 1 done, 1 failed")
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
    assert blocker.args[0] == "Batch finished: Dusk study: 1 done"


def test_what_no_notification_server_showed_is_said_once_by_the_window(
    qtbot, ledger, preset_name
) -> None:
    notifier = BatchNotifier(app_icon(), ledger)
    ids = make_jobs(ledger, preset_name, 2)
    batch = ledger.job(ids[0]).batch
    succeed_job(ledger, ids[0], [])
    fail_job(ledger, ids[1], Reason.execution_error)
    ledger.notices.take_end(batch, "finished", None)
    assert notifier.show_unshown() == [], "the controller has not tried the desktop yet"
    ledger.notices.said_on_desktop(batch, "no_server")
    with qtbot.waitSignal(notifier.banner) as blocker:  # offscreen: no tray, the banner
        assert notifier.show_unshown() == [batch]
    assert blocker.args[0] == f"Batch finished: {_title(ledger, batch)}: 1 done, 1 failed"
    assert notifier.show_unshown() == []


def test_a_batch_over_is_said_in_the_window_by_its_name(qtbot, ledger, preset_name) -> None:
    notifier = BatchNotifier(app_icon(), ledger)
    ids = make_jobs(ledger, preset_name, 1)
    ledger.name_batch(ledger.job(ids[0]).batch, "Fox")
    notifier.seed(ledger.jobs())
    succeed_job(ledger, ids[0], [])
    with qtbot.waitSignal(notifier.banner) as blocker:
        notifier.observe(ledger.jobs())
    assert blocker.args[0] == "Batch finished: Fox: 1 done"


def test_the_window_says_a_batch_end_once_in_the_words_of_the_desktops_notice(
    qtbot, ledger, preset_name
) -> None:
    """Seen with no notification server and no tray: "Batch Fox finished: 2 succeeded, 1
    failed" from the window, then "Batch finished: Fox: 2 done, 1 failed" from the
    controller's notice; one end said twice, in two wordings."""
    notifier = BatchNotifier(app_icon(), ledger)
    ids = make_jobs(ledger, preset_name, 2)
    batch = ledger.job(ids[0]).batch
    ledger.name_batch(batch, "Fox")
    notifier.seed(ledger.jobs())
    succeed_job(ledger, ids[0], [])
    fail_job(ledger, ids[1], Reason.execution_error)
    said: list[str] = []
    notifier.banner.connect(said.append)
    notifier.observe(ledger.jobs())
    ledger.notices.take_end(batch, "finished", None)
    ledger.notices.said_on_desktop(batch, "no_server")
    assert notifier.show_unshown() == [batch]  # taken: no other window says it
    assert said == ["Batch finished: Fox: 1 done, 1 failed"]


def _title(ledger, batch: str) -> str:
    return batch_title(ledger, ledger.batch(batch))

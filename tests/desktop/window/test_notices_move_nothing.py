"""Every notice (queued, refused, a file that did not load, a batch done, an action that
failed) floats over the window: no pane, list or table moves or changes size."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QWidget

from tests.desktop.conftest import make_jobs
from tests.desktop.helpers import StubDropEvent


def places(window) -> dict[str, QRect]:
    widgets: dict[str, QWidget] = {
        "table": window.table,
        "filter bar": window.filter_bar,
        "presets": window.presets.list,
        "composer form": window.composer.seeds,
        "queue button": window.composer.queue_button,
    }
    return {
        name: QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
        for name, widget in widgets.items()
    }


def test_no_notice_moves_a_widget(window, ledger, preset_name, qtbot, tmp_path) -> None:
    window.notifier._tray = None  # the in-app notice, whatever the platform offers
    make_jobs(ledger, preset_name, 3)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    window.model.load_all()
    qtbot.wait(50)
    before = places(window)
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    window.composer.seeds.count.setValue(2)
    notices = {
        "queued": window.composer.queue_button.click,
        "refused": lambda: window.composer.show_error("the batch repeats seed 5"),
        "file that did not load": lambda: window.dropEvent(StubDropEvent([broken])),
        "batch done": lambda: window.notifier.banner.emit("Batch finished: Fox: 3 done"),
        "action failed": lambda: window.job_actions.failed.emit("cancel: job gone"),
    }
    for notice, show in notices.items():
        window.banner.dismiss()
        show()
        qtbot.wait(50)
        assert window.banner.isVisible(), notice
        moved = {k: v for k, v in places(window).items() if before[k] != v}
        assert not moved, f"{notice} moved {moved} (from {before})"

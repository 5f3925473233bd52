"""The picture viewer: stepping through a batch, fit and zoom, the picture's values and actions."""

from __future__ import annotations

from PIL import Image
from PySide6.QtCore import Qt

from tests.desktop.conftest import make_jobs
from tests.desktop.helpers import succeed_job


def _pictures(ledger, preset_name, tmp_path, count=3):
    ids = make_jobs(ledger, preset_name, count)
    for n, job_id in enumerate(ids):
        path = tmp_path / "out" / f"{job_id}_0.png"
        path.parent.mkdir(exist_ok=True)
        Image.new("RGB", (64 + n, 48), "#336699").save(path)
        succeed_job(ledger, job_id, [str(path)])
    return ids


def test_activating_a_row_opens_the_viewer_on_its_picture(
    qtbot, window, ledger, preset_name, tmp_path
):
    ids = _pictures(ledger, preset_name, tmp_path, 2)
    window.model.refresh()
    window.select_job(ids[1])
    window.table.activated.emit(window.table.currentIndex())
    viewer = window.viewer
    assert viewer is not None and viewer.isVisible()
    assert viewer.current().job_id == ids[1]
    qtbot.waitUntil(viewer.canvas.has_picture)
    assert viewer.canvas.picture_size() == (65, 48)
    qtbot.keyClick(viewer, Qt.Key.Key_Left)
    assert viewer.current().job_id == ids[0]

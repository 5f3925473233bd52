"""The live preview of the selected running job, from the file the controller keeps."""

from __future__ import annotations

from PIL import Image

from core.controller.previews import FOLDER
from desktop.window.main_window import MainWindow
from tests.core.helpers import run_job, succeed
from tests.desktop.conftest import make_jobs


def write_preview(ledger, job_id: str, colour: tuple[int, int, int]) -> None:
    folder = ledger.folder / FOLDER
    folder.mkdir(exist_ok=True)
    Image.new("RGB", (64, 64), colour).save(folder / f"{job_id}.jpg", quality=95)


def shown_colour(window: MainWindow) -> tuple[int, int, int]:
    image = window.details.preview.pixmap().toImage()
    pixel = image.pixelColor(image.width() // 2, image.height() // 2)
    return pixel.red(), pixel.green(), pixel.blue()


def near(found: tuple[int, int, int], wanted: tuple[int, int, int]) -> bool:
    return all(abs(a - b) < 12 for a, b in zip(found, wanted, strict=True))


def test_the_running_jobs_newest_preview_shows_and_goes_when_it_ends(
    window, controller, ledger, preset_name, qtbot
) -> None:
    job, other = make_jobs(ledger, preset_name, 2)
    prompt_id = run_job(ledger, job)
    qtbot.waitUntil(lambda: window.model.rowCount() == 2)
    window.select_job(job)
    qtbot.waitUntil(lambda: window.details.job_id() == job)
    write_preview(ledger, job, (220, 20, 20))
    controller.push(previews={job: 1})
    qtbot.waitUntil(lambda: not window.details.preview.isHidden())  # read off the GUI thread
    assert near(shown_colour(window), (220, 20, 20))
    write_preview(ledger, job, (20, 20, 220))
    controller.push(previews={job: 2})
    qtbot.waitUntil(lambda: near(shown_colour(window), (20, 20, 220)))
    window.select_job(other)  # another job: its own preview, none yet
    qtbot.waitUntil(lambda: window.details.job_id() == other)
    controller.push(previews={job: 3})
    assert window.details.preview.isHidden()
    window.select_job(job)
    qtbot.waitUntil(lambda: window.details.job_id() == job)
    controller.push(previews={job: 4})
    qtbot.waitUntil(lambda: not window.details.preview.isHidden())
    succeed(ledger, prompt_id, [])
    controller.push(previews={})
    assert window.details.preview.isHidden()

"""Preview frames are read and decoded off the GUI thread, once per frame."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from core.controller.previews import FOLDER
from desktop.common import preview_reader
from desktop.common.preview_reader import PreviewReader


def test_previews_are_read_in_a_worker_thread_once_per_frame(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / FOLDER).mkdir()
    Image.new("RGB", (32, 16), (200, 30, 30)).save(tmp_path / FOLDER / "job_1.png")
    readers: list[str] = []
    find = preview_reader.preview_file

    def watched(folder: Path, job_id: str) -> Path | None:
        readers.append(threading.current_thread().name)
        return find(folder, job_id)

    monkeypatch.setattr(preview_reader, "preview_file", watched)
    reader = PreviewReader(tmp_path)
    got: list[tuple[str, int, QImage]] = []
    reader.ready.connect(lambda job, count, image: got.append((job, count, image)))
    reader.request("job_1", 1)
    reader.request("job_1", 1)  # the same frame again: not read twice
    qtbot.waitUntil(lambda: len(got) == 1)
    job, count, image = got[0]
    assert (job, count, image.width(), image.height()) == ("job_1", 1, 32, 16)
    assert readers == [readers[0]]
    assert readers[0] != threading.main_thread().name
    reader.request("job_2", 1)  # no file: nothing is delivered, nothing fails
    reader.request("job_1", 2)
    qtbot.waitUntil(lambda: len(got) == 2)
    assert got[1][:2] == ("job_1", 2)

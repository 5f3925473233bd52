"""Full pictures read off the GUI thread for the viewer: delivered on the GUI thread, read once
while asked twice, the last few kept decoded; an unreadable file said to have failed."""

from __future__ import annotations

import threading

from PIL import Image
from PySide6.QtGui import QImageReader

from desktop.viewer import picture_loader
from desktop.viewer.picture_loader import CACHED, PictureLoader


def pictures(tmp_path, count: int) -> list[str]:
    paths = []
    for n in range(count):
        path = tmp_path / f"job_{n}.png"
        Image.new("RGB", (40 + n, 30), (10 * n, 80, 160)).save(path)
        paths.append(str(path))
    return paths


def test_read_in_a_worker_delivered_on_the_gui_thread_and_kept(qtbot, tmp_path, monkeypatch):
    read_in: list[str] = []

    class Watched(QImageReader):
        def read(self):
            read_in.append(threading.current_thread().name)
            return super().read()

    monkeypatch.setattr(picture_loader, "QImageReader", Watched)
    loader = PictureLoader()
    loaded: list[tuple[str, int, str]] = []
    loader.loaded.connect(
        lambda path, image: loaded.append((path, image.width(), threading.current_thread().name))
    )
    paths = pictures(tmp_path, CACHED + 1)
    loader.request(paths[0])
    loader.request(paths[0])  # being read: once
    qtbot.waitUntil(lambda: len(loaded) == 1)
    assert loaded == [(paths[0], 40, threading.main_thread().name)]
    assert read_in == ["pictures_0"]
    assert loader.cached(paths[0]) is not None
    loader.request(paths[0])  # kept: not read again
    for path in paths[1:]:
        loader.request(path)
    qtbot.waitUntil(lambda: len(loaded) == CACHED + 1)
    assert len(read_in) == CACHED + 1
    assert loader.cached(paths[0]) is None  # the oldest is let go
    assert all(loader.cached(path) is not None for path in paths[1:])
    loader.shutdown()


def test_an_unreadable_file_fails_with_the_reason(qtbot, tmp_path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    loader = PictureLoader()
    failed: list[tuple[str, str]] = []
    loader.failed.connect(lambda path, why: failed.append((path, why)))
    loader.request(str(broken))
    qtbot.waitUntil(lambda: bool(failed))
    assert failed[0][0] == str(broken)
    assert failed[0][1].startswith(f"cannot read {broken}: ")
    assert loader.cached(str(broken)) is None
    loader.request(str(broken))  # no longer being read: asked again, read again
    qtbot.waitUntil(lambda: len(failed) == 2)
    loader.shutdown()

"""Thumbnails: made once per picture as it is now, cached on disk, made off the GUI thread and
announced on it; a file that is no picture is said to have failed, once."""

from __future__ import annotations

import threading

import pytest
from PIL import Image

from desktop.common import thumbnails as thumbnails_module
from desktop.common.thumbnails import ThumbnailLoader, make_thumbnail, sharp_size, thumbnail_path


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "out" / "job_1.png"
    path.parent.mkdir()
    Image.new("RGB", (640, 480), "#336699").save(path)
    return path


def test_thumbnail_is_cached_on_disk(tmp_path, image) -> None:
    folder = tmp_path / "cache"
    first = make_thumbnail(image, folder)
    assert first == thumbnail_path(image, folder)
    with Image.open(first) as thumb:
        assert max(thumb.size) == 160
    assert make_thumbnail(image, folder) == first


def test_made_in_a_worker_announced_on_the_gui_thread(qtbot, thumbnails, image, monkeypatch):
    made_in: list[str] = []
    make = thumbnails_module.make_thumbnail

    def watched(*args):
        made_in.append(threading.current_thread().name)
        return make(*args)

    monkeypatch.setattr(thumbnails_module, "make_thumbnail", watched)
    ready: list[tuple[str, str, str]] = []
    thumbnails.ready.connect(
        lambda source, thumb: ready.append((source, thumb, threading.current_thread().name))
    )
    thumbnails.request(str(image))
    thumbnails.request(str(image))  # asked again while being made: made once
    qtbot.waitUntil(lambda: len(ready) == 1)
    source, thumb, announced_in = ready[0]
    assert (source, announced_in) == (str(image), threading.main_thread().name)
    assert thumbnails.cached(str(image)) == thumb
    thumbnails.request(str(image))  # made: not again
    assert len(made_in) == 1
    assert made_in[0].startswith("thumbnails")


def test_at_200_percent_thumbnails_are_made_twice_as_big(qtbot, tmp_path, image, monkeypatch):
    """Seen at 200 %: every picture of the sheet and the library blurred, a thumbnail of 160
    pixels drawn on 264."""

    class Screen:
        def __init__(self, ratio: float) -> None:
            self.ratio = ratio

        def devicePixelRatio(self) -> float:
            return self.ratio

    monkeypatch.setattr(
        thumbnails_module.QGuiApplication, "screens", lambda: [Screen(1.0), Screen(2.0)]
    )
    assert sharp_size() == 320
    loader = ThumbnailLoader(tmp_path / "cache")
    try:
        with qtbot.waitSignal(loader.ready):
            assert loader.pixmap(str(image)) is None  # made for a later paint
        pixmap = loader.pixmap(str(image))
        assert pixmap is not None
        assert (pixmap.width(), pixmap.height()) == (320, 240)
    finally:
        loader.shutdown()
    monkeypatch.setattr(thumbnails_module.QGuiApplication, "screens", lambda: [Screen(1.0)])
    assert sharp_size() == 160


@pytest.mark.expect_log("desktop.common.thumbnails")
def test_a_file_that_is_no_picture_fails_once(qtbot, thumbnails, tmp_path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    failed: list[str] = []
    thumbnails.failed.connect(lambda source, _why: failed.append(source))
    with qtbot.waitSignal(thumbnails.failed, timeout=10_000):
        thumbnails.request(str(broken))
    assert failed == [str(broken)]
    assert thumbnails.cached(str(broken)) is None

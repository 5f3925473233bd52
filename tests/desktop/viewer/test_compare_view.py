"""The compare view: a pinned picture beside the others, stepping on the right; zoom and pan
on either canvas move both, and stepping keeps them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from PIL import Image
from PySide6.QtCore import QPointF

from core.pictures.pictures import Picture
from desktop.viewer.compare_view import CompareView

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def pictures(tmp_path: Path) -> list[Picture]:
    found = []
    for n, colour in enumerate([(200, 90, 30), (30, 90, 200), (90, 200, 30)]):
        path = tmp_path / f"job-{n}_0.png"
        Image.new("RGB", (64, 48), colour).save(path)
        found.append(Picture(f"job-{n}", path))
    return found


@pytest.fixture
def compare(qtbot, pictures) -> CompareView:
    view = CompareView(pictures[0], pictures, 1)
    qtbot.addWidget(view)
    view.resize(800, 400)
    view.show()
    qtbot.waitExposed(view)
    return view


def _view(canvas) -> tuple[bool, float, QPointF]:
    return canvas.fitting, canvas.scale, canvas.center


def test_both_canvases_show_their_pictures(compare, pictures) -> None:
    assert compare.left.has_picture()
    assert compare.right.has_picture()
    assert compare.current() == pictures[1]
    assert "2 of 3" in compare.right_name.text()


def test_zoom_and_pan_on_either_move_both(compare) -> None:
    compare.right.zoom_by(2.0, QPointF(10, 10))
    assert not compare.left.fitting
    assert _view(compare.left) == _view(compare.right)
    compare.left.zoom_by(1.5)
    compare.left.center = compare.left.center + QPointF(5, 3)  # as a drag moves it
    compare.left.view_changed.emit()
    assert _view(compare.right) == _view(compare.left)
    compare.actions_by_name["fit"].trigger()
    assert compare.left.fitting
    assert compare.right.fitting


def test_stepping_keeps_the_shared_view(compare, pictures) -> None:
    compare.actions_by_name["zoom_in"].trigger()
    zoomed = _view(compare.left)
    compare.actions_by_name["next"].trigger()
    assert compare.current() == pictures[2]
    assert _view(compare.right) == zoomed == _view(compare.left)
    compare.actions_by_name["next"].trigger()  # the last stays
    assert compare.current() == pictures[2]
    compare.actions_by_name["previous"].trigger()
    assert compare.current() == pictures[1]
    assert _view(compare.right) == zoomed

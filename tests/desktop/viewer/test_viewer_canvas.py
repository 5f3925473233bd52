"""Tests for desktop.viewer.viewer_canvas: fit, zoom and actual size change the picture's scale."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication


def test_fit_zoom_and_actual_size_change_the_scale(qtbot, viewer) -> None:
    canvas = viewer.canvas
    width, height = canvas.picture_size()
    fitted = min(canvas.width() / width, canvas.height() / height)
    assert canvas.fitting
    assert canvas.scale == pytest.approx(fitted)
    qtbot.keyClick(viewer, Qt.Key.Key_A)
    assert canvas.zoom() == 1.0  # one picture pixel per device pixel, at any screen scale
    assert canvas.scale == 1.0 / canvas.devicePixelRatioF()
    assert viewer.windowTitle().endswith(" — 100% — Batchline")
    assert not canvas.fitting
    qtbot.keyClick(viewer, Qt.Key.Key_Plus)
    assert canvas.zoom() == pytest.approx(1.25)
    # The wheel zooms around the cursor: the picture point under it stays there.
    at = QPointF(canvas.width() * 0.25, canvas.height() * 0.3)
    before = canvas.to_picture(at)
    wheel = QWheelEvent(
        at,
        canvas.mapToGlobal(at),
        QPoint(),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(canvas, wheel)
    assert canvas.zoom() == pytest.approx(1.25 * 1.25)
    assert canvas.to_picture(at).x() == pytest.approx(before.x())
    assert canvas.to_picture(at).y() == pytest.approx(before.y())
    centre = canvas.center
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=QPoint(100, 100))
    drag = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(140, 100),
        canvas.mapToGlobal(QPointF(140, 100)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(canvas, drag)
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=QPoint(140, 100))
    assert canvas.center.x() == pytest.approx(centre.x() - 40 / canvas.scale)
    qtbot.keyClick(viewer, Qt.Key.Key_F)
    assert canvas.fitting
    assert canvas.scale == pytest.approx(fitted)

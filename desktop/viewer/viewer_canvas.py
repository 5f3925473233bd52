"""One picture on a canvas: fitted to it by default, zoomed around a point, panned by dragging."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QImage,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPixmap,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

ZOOM_STEP = 1.25
MIN_SCALE = 0.02
MAX_SCALE = 32.0


class PictureCanvas(QWidget):
    """Paints one picture at ``scale`` logical pixels per picture pixel (``zoom()``: device
    pixels, what "100 %" means on a high-density screen too).

    In fit mode (the default, and after ``fit()``) the scale follows the canvas's size so the
    whole picture shows; zooming or ``actual_size()`` leaves fit mode. ``center`` is the picture
    point shown at the canvas's centre.

    Signals:
        scale_changed(float): the scale now shown.
        view_changed(): the scale, the centre or fit mode changed (zoomed, panned, fitted).
    """

    scale_changed = Signal(float)
    view_changed = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(160, 120)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Picture")
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self._pixmap: QPixmap | None = None
        self.message = ""
        self.fitting = True
        self.scale = 1.0
        self.center = QPointF()
        self._drag: QPointF | None = None

    # --- what is shown --------------------------------------------------------------------------

    def set_image(self, image: QImage | None, message: str = "") -> None:
        """Show ``image`` fitted (None: ``message`` instead, e.g. "Loading…")."""
        self._pixmap = (
            QPixmap.fromImage(image) if image is not None and not image.isNull() else None
        )
        self.message = message
        self.fit()

    def has_picture(self) -> bool:
        return self._pixmap is not None

    def picture_size(self) -> tuple[int, int] | None:
        return (self._pixmap.width(), self._pixmap.height()) if self._pixmap else None

    # --- scale ----------------------------------------------------------------------------------

    def fit(self) -> None:
        """Show the whole picture, as large as the canvas allows."""
        self.fitting = True
        self._apply_fit()
        self.update()
        self.view_changed.emit()

    def actual_size(self) -> None:
        """One picture pixel per device pixel, the centre kept."""
        self._set_scale(1.0 / self.devicePixelRatioF(), None)

    def zoom(self) -> float:
        """Device pixels per picture pixel: 1.0 is "100 %"."""
        return self.scale * self.devicePixelRatioF()

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        """Zoom by ``factor`` keeping the picture point under ``anchor`` (canvas coordinates;
        None: the centre) where it is."""
        self._set_scale(self.scale * factor, anchor)

    def _set_scale(self, scale: float, anchor: QPointF | None) -> None:
        if self._pixmap is None:
            return
        scale = min(max(scale, MIN_SCALE), MAX_SCALE)
        if anchor is not None:
            point = self.to_picture(anchor)
            self.center = point - (anchor - self._middle()) / scale
        self.fitting = False
        self.scale = scale
        self.update()
        self.scale_changed.emit(scale)
        self.view_changed.emit()

    def _apply_fit(self) -> None:
        if self._pixmap is None:
            return
        width, height = self._pixmap.width(), self._pixmap.height()
        self.scale = min(self.width() / max(width, 1), self.height() / max(height, 1))
        self.center = QPointF(width / 2, height / 2)
        self.scale_changed.emit(self.scale)

    def follow(self, other: PictureCanvas) -> None:
        """Show the same view as ``other`` (its scale, centre and fit mode): two canvases in
        step share one zoom and pan."""
        if (self.fitting, self.scale, self.center) == (other.fitting, other.scale, other.center):
            return
        self.fitting = other.fitting
        if self.fitting:
            self._apply_fit()
        else:
            self.scale, self.center = other.scale, QPointF(other.center)
        self.update()

    # --- coordinates ----------------------------------------------------------------------------

    def _middle(self) -> QPointF:
        return QPointF(self.width() / 2, self.height() / 2)

    def to_picture(self, point: QPointF) -> QPointF:
        """The picture point under canvas point ``point``."""
        return self.center + (point - self._middle()) / self.scale

    def picture_rect(self) -> QRectF:
        """Where the picture is painted, in canvas coordinates."""
        if self._pixmap is None:
            return QRectF()
        top_left = self._middle() - self.center * self.scale
        return QRectF(
            top_left.x(),
            top_left.y(),
            self._pixmap.width() * self.scale,
            self._pixmap.height() * self.scale,
        )

    # --- events ---------------------------------------------------------------------------------

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().dark())
        if self._pixmap is None:
            painter.setPen(self.palette().brightText().color())
            flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
            painter.drawText(self.rect().adjusted(12, 12, -12, -12), flags, self.message)
            return
        # Smooth when fitted or shrunk; zoomed in past 100 %, each pixel shows as a square.
        smooth = self.fitting or self.zoom() < 1.0
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, smooth)
        painter.drawPixmap(self.picture_rect(), self._pixmap, QRectF(self._pixmap.rect()))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.fitting:
            self._apply_fit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_by(ZOOM_STEP**steps, event.position())
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self._pixmap is not None:
            self._drag = event.position()
            self.setCursor(Qt.CursorShape.ClosedHandCursor)
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag is not None:
            delta = event.position() - self._drag
            self._drag = event.position()
            self.center = self.center - delta / self.scale  # a new point: never shared
            self.fitting = False
            self.update()
            self.view_changed.emit()
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self._drag = None
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        super().mouseReleaseEvent(event)

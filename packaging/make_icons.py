"""Render resources/batchline.svg to the PNG, ICO and ICNS icons the installers use."""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

RESOURCES = Path(__file__).resolve().parent.parent / "resources"
SVG = RESOURCES / "batchline.svg"
ICO_SIZES = [(16, 16), (24, 24), (32, 32), (48, 48), (64, 64), (128, 128), (256, 256)]


def render(size: int) -> Image.Image:
    """The SVG drawn by Qt at ``size`` pixels, as a Pillow RGBA image."""
    image = QImage(size, size, QImage.Format.Format_RGBA8888)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(SVG)).render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = bytes(image.constBits())
    return Image.frombuffer("RGBA", (size, size), data, "raw", "RGBA", image.bytesPerLine(), 1)


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])
    big = render(1024)
    render(256).save(RESOURCES / "batchline.png", optimize=True)
    big.save(RESOURCES / "batchline.ico", sizes=ICO_SIZES)
    big.save(RESOURCES / "batchline.icns")
    for name in ("batchline.png", "batchline.ico", "batchline.icns"):
        print(f"{RESOURCES / name}: {(RESOURCES / name).stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())

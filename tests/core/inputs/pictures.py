"""Small real pictures for the tests of input pictures: PNGs made with Pillow."""

from __future__ import annotations

from pathlib import Path

from PIL import Image


def make_png(path: Path, shade: int = 0, size: tuple[int, int] = (8, 8)) -> Path:
    """A ``size`` PNG at ``path`` whose colour (and so its bytes) depends on ``shade``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    colour = (shade % 256, (shade * 7) % 256, (shade * 13) % 256)
    Image.new("RGB", size, colour).save(path, format="PNG")
    return path


def make_folder(folder: Path, count: int, stem: str = "render_") -> list[Path]:
    """``count`` different PNGs ``<stem>1.png`` ... in ``folder``, in natural order."""
    return [make_png(folder / f"{stem}{i}.png", shade=i) for i in range(1, count + 1)]

"""Pictures the simulator computes (real Pillow images and seed-derived synthetic renders), and
writing them as ComfyUI's SaveImage and PreviewImage do: names, folders, PNG text."""

from __future__ import annotations

import io
import json
import math
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont
from PIL.PngImagePlugin import PngInfo

# Above this many pixels per batch the simulator keeps downscaled frames (it is not a GPU box).
REAL_PIXEL_LIMIT = 16_777_216

# Pillow's bitmap font, loaded once: its default (FreeType) font is reloaded and antialiased on
# every call, which made the labels most of a small picture's cost.
_LABEL_FONT = ImageFont.load_default_imagefont()


@dataclass
class SimImage:
    """An IMAGE value: nominal size and batch, plus the frames actually held in memory.

    Frames are real RGB images; for very large nominal sizes they are downscaled copies.
    ``look`` is what else made it (a loaded file's bytes): nodes downstream depend on it.
    """

    width: int
    height: int
    frames: list[Image.Image]
    seed: int | None = None
    look: int = 0

    @property
    def batch(self) -> int:
        return len(self.frames)


@dataclass
class Latent:
    """A LATENT value: the pixel size it decodes to, its batch, and the seed that made it."""

    width: int
    height: int
    batch: int = 1
    seed: int | None = None
    steps: list[str] = field(default_factory=list)
    look: int = 0  # what else shaped it (a sampler's cfg, steps, prompts, model): see nodes


def frame_size(width: int, height: int, batch: int) -> tuple[int, int]:
    """The in-memory size of one frame, downscaled when the batch exceeds the pixel budget."""
    pixels = max(1, width * height * batch)
    if pixels <= REAL_PIXEL_LIMIT:
        return max(1, width), max(1, height)
    factor = math.sqrt(REAL_PIXEL_LIMIT / pixels)
    return max(1, int(width * factor)), max(1, int(height * factor))


def solid(width: int, height: int, batch: int, color: int) -> SimImage:
    """ComfyUI's EmptyImage: every frame filled with 0xRRGGBB."""
    rgb = ((color >> 16) & 0xFF, (color >> 8) & 0xFF, color & 0xFF)
    size = frame_size(width, height, min(batch, 64))
    frames = [Image.new("RGB", size, rgb) for _ in range(min(batch, 64))]
    return SimImage(width, height, frames)


def synthetic(width: int, height: int, batch: int, seed: int, look: int = 0) -> SimImage:
    """A picture derived from the seed and ``look`` (what else made it): a different seed, or
    the same seed with another cfg, prompt or model, gives a visibly different image; the
    same ones give the same image."""
    count = max(1, min(batch, 64))
    size = frame_size(width, height, count)
    frames = [_render(size, seed + index, look, width, height) for index in range(count)]
    return SimImage(width, height, frames, seed)


def _render(size: tuple[int, int], seed: int, look: int, width: int, height: int) -> Image.Image:
    """The seed lays the shapes out and ``look`` paints them, as a seed fixes a picture's
    composition and a sampler's cfg or prompt changes how it comes out."""
    shapes = random.Random(seed)
    paint = random.Random(f"{seed}:{look}") if look else shapes
    top, bottom = _random_color(paint), _random_color(paint)
    image = _gradient(size, top, bottom)
    draw = ImageDraw.Draw(image)
    w, h = size
    for _ in range(shapes.randint(4, 9)):
        x, y = shapes.randrange(w), shapes.randrange(h)
        r = max(2, int(min(w, h) * shapes.uniform(0.05, 0.3)))
        box = (x - r, y - r, x + r, y + r)
        if shapes.random() < 0.5:
            draw.ellipse(box, fill=_random_color(paint))
        else:
            draw.rectangle(box, fill=_random_color(paint))
    draw.text((4, 4), f"seed {seed}  {width}x{height}", fill=(255, 255, 255), font=_LABEL_FONT)
    draw.text((4, 16), "Batchline simulator", fill=(0, 0, 0), font=_LABEL_FONT)
    return image


def _gradient(
    size: tuple[int, int], top: tuple[int, int, int], bottom: tuple[int, int, int]
) -> Image.Image:
    pairs = list(zip(top, bottom, strict=True))
    rows = bytes(a + (b - a) * y // 255 for y in range(256) for a, b in pairs)
    return Image.frombytes("RGB", (1, 256), rows).resize(size, Image.Resampling.BILINEAR)


def _random_color(rng: random.Random) -> tuple[int, int, int]:
    return rng.randrange(256), rng.randrange(256), rng.randrange(256)


PREVIEW_SIZE = 64


def preview_jpeg(prompt_id: str, done: float) -> bytes:
    """A sampler step's preview: noise clearing into the prompt's colour as ``done`` goes 0 → 1."""
    rng = random.Random(prompt_id)
    target = _random_color(rng)
    noise = Image.effect_noise((PREVIEW_SIZE, PREVIEW_SIZE), 64).convert("RGB")
    image = Image.blend(noise, Image.new("RGB", noise.size, target), min(1.0, max(0.0, done)))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=70)
    return out.getvalue()


# Writing output files as ComfyUI's SaveImage and PreviewImage do: names, folders, PNG text.


class OutsideOutputFolder(Exception):
    """A filename_prefix that escapes the output folder (ComfyUI raises a bare Exception)."""


def save_path(prefix: str, output_dir: Path) -> tuple[Path, str, int, str]:
    """ComfyUI's ``get_save_image_path``: (folder, file stem, next counter, subfolder)."""
    base = os.path.abspath(output_dir)
    subfolder = os.path.dirname(os.path.normpath(prefix))
    filename = os.path.basename(os.path.normpath(prefix))
    folder = os.path.join(base, subfolder)
    common = os.path.commonpath((base, os.path.abspath(folder)))
    if common != base:
        raise OutsideOutputFolder(
            "**** ERROR: Saving image outside the output folder is not allowed."
            f"\n full_output_folder: {os.path.abspath(folder)}"
            f"\n         output_dir: {base}"
            f"\n         commonpath: {common}"
        )
    return Path(folder), filename, _next_counter(Path(folder), filename), subfolder


# (folder, file stem) -> (the next counter, the folder's mtime once that file's frames were saved)
_known_counters: dict[tuple[Path, str], tuple[int, int]] = {}


def _next_counter(folder: Path, filename: str) -> int:
    """The highest counter in use plus one, as ComfyUI finds it by listing the folder; the
    listing is skipped while the folder is as the last save left it."""
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        return 1
    known = _known_counters.get((folder, filename))
    if known is not None:
        counter, mtime = known
        untouched = folder.stat().st_mtime_ns == mtime
        if untouched and not (folder / f"{filename}_{counter:05}_.png").exists():
            return counter
    counters = [0]
    for name in os.listdir(folder):
        head, sep, rest = name.partition(filename + "_")
        if head == "" and sep and rest.split("_")[0].isdigit() and rest.endswith("_.png"):
            counters.append(int(rest.split("_")[0]))
    return max(counters) + 1


def pnginfo(prompt: dict[str, Any] | None, extra_pnginfo: dict[str, Any] | None) -> PngInfo:
    """The tEXt chunks ComfyUI writes: ``prompt`` plus one per ``extra_pnginfo`` key."""
    info = PngInfo()
    if prompt is not None:
        info.add_text("prompt", json.dumps(prompt))
    for key, value in (extra_pnginfo or {}).items():
        info.add_text(key, json.dumps(value))
    return info


def save_images(
    image: SimImage,
    prefix: str,
    folder_root: Path,
    folder_type: str,
    info: PngInfo,
) -> list[dict[str, str]]:
    """Write every frame as ``<prefix>_<counter:05>_.png``; return the UI ``images`` list."""
    folder, filename, counter, subfolder = save_path(prefix, folder_root)
    results = []
    for frame in image.frames:
        name = f"{filename}_{counter:05}_.png"
        frame.save(folder / name, pnginfo=info, compress_level=4 if folder_type == "output" else 1)
        results.append({"filename": name, "subfolder": subfolder, "type": folder_type})
        counter += 1
    _known_counters[(folder, filename)] = (counter, folder.stat().st_mtime_ns)
    return results


def temp_prefix(rng: random.Random) -> str:
    """PreviewImage's ``ComfyUI_temp_<5 letters>`` prefix."""
    return "ComfyUI_temp_" + "".join(rng.choice("abcdefghijklmnopqrstupvxyz") for _ in range(5))

"""Writing output files as ComfyUI's SaveImage and PreviewImage do: names, folders, PNG text."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL.PngImagePlugin import PngInfo

if TYPE_CHECKING:
    import random

    from simulator.images import SimImage


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

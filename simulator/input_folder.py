"""The simulated server's input folder as LoadImage sees it (ComfyUI 0.3.64's nodes.py and
folder_paths.py): its choices in /object_info, the file a value names, the digest that keys the
node cache (LoadImage's IS_CHANGED), and emptying it."""

from __future__ import annotations

import copy
import hashlib
import mimetypes
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

# The classes that load a picture from the input folder, and whether their choices are only the
# files whose type is an image (LoadImage filters; LoadImageMask lists every file).
PICTURE_LOADERS: dict[str, bool] = {"LoadImage": True, "LoadImageMask": False}
PICTURE_INPUT = "image"
INPUT_ANNOTATION = " [input]"


def choices(folder: Path, images_only: bool) -> list[str]:
    """The top-level files of ``folder``, sorted, as LoadImage's ``INPUT_TYPES`` lists them
    (``images_only``: those whose name guesses an ``image/*`` type)."""
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.is_file()]
    except OSError:
        return []
    if images_only:
        names = [name for name in names if _is_image_name(name)]
    return sorted(names)


def _is_image_name(name: str) -> bool:
    kind, _ = mimetypes.guess_type(name, strict=False)
    return kind is not None and kind.split("/")[0] == "image"


def with_input_choices(object_info: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    """``object_info`` with each picture loader's ``image`` choices read from ``folder`` now
    (a shallow copy: only the loaders' entries are copied, the shared catalogue is untouched)."""
    served = dict(object_info)
    for class_type, images_only in PICTURE_LOADERS.items():
        node = served.get(class_type)
        if node is None:
            continue
        node = copy.deepcopy(node)
        spec = node["input"]["required"][PICTURE_INPUT]
        spec[0] = choices(folder, images_only)
        served[class_type] = node
    return served


def resolve(folder: Path, value: object) -> Path | None:
    """The file a loader's ``image`` value names in ``folder`` (``sub/name.png`` allowed, an
    ``" [input]"`` annotation dropped), or None: not a text, empty, outside the folder, or no
    such file."""
    if not isinstance(value, str):
        return None
    name = value.removesuffix(INPUT_ANNOTATION)
    if not name:
        return None
    base = os.path.abspath(folder)
    path = os.path.abspath(os.path.join(base, name))
    if os.path.commonpath((base, path)) != base or not os.path.isfile(path):
        return None
    return Path(path)


def digest(folder: Path, value: object) -> str | None:
    """The SHA-256 of the file ``value`` names (LoadImage's IS_CHANGED), None without one."""
    path = resolve(folder, value)
    if path is None:
        return None
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def wipe(folder: Path) -> int:
    """Empty ``folder`` (files and subfolders; the folder stays); returns how many entries
    went."""
    removed = 0
    for entry in list(folder.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed += 1
    return removed

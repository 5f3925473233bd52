"""The ComfyUI extension Batchline ships ("Send to Batchline"): where it is, and installing it.

The folder ``resources/comfyui-extension/batchline-send`` is copied into a ComfyUI's
``custom_nodes``. A copy already there is replaced only when it is exactly a version Batchline
shipped (its digest is in ``SHIPPED_DIGESTS``); a copy the artist changed is kept unless asked
(``force``), and then it is set aside as ``<name>.N.disabled`` (ComfyUI skips such folders),
never deleted. Links are never followed: a link in the way is refused, or with ``force`` the link
itself is removed.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from core.errors import InputError

FOLDER_NAME = "batchline-send"
SOURCE = Path(__file__).resolve().parents[1] / "resources" / "comfyui-extension" / FOLDER_NAME

# The digest (folder_digest) of every version of the folder Batchline shipped, oldest first.
# Changing the extension means adding its new digest here (a test checks the current one is).
SHIPPED_DIGESTS = (
    "8aaf37a7b5a0ba1d44f344443ed92361f5661380fe0fa783921cebef98d797c6",  # 1: issue 32
    "821c4abf15b63407f9c8441a85cdc297a34423e7548c26ad8351cd97409b48f0",  # 2: Other pages
)

_SKIPPED = {"__pycache__", ".DS_Store"}


@dataclass(frozen=True, slots=True)
class Installed:
    folder: Path
    outcome: str  # "installed" | "updated" | "unchanged" | "replaced"
    kept_aside: Path | None = None

    def sentence(self) -> str:
        if self.outcome == "unchanged":
            return f"The Batchline extension in {self.folder} is already this version."
        kept = f"; your changed copy is kept as {self.kept_aside.name}" if self.kept_aside else ""
        verb = "Installed" if self.outcome == "installed" else "Updated"
        return f"{verb} the Batchline extension in {self.folder}{kept}. Restart ComfyUI to load it."


def source_folder() -> Path:
    if not (SOURCE / "__init__.py").is_file():
        raise InputError(f"the ComfyUI extension is missing from this Batchline ({SOURCE})")
    return SOURCE


def folder_digest(folder: Path) -> str:
    """One hash over the folder's file names and contents; links count as changes, not followed."""
    digest = hashlib.sha256()
    for path in sorted(_entries(folder)):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            digest.update(f"link {rel} {path.readlink()}\n".encode())
        elif path.is_file():
            digest.update(f"file {rel} {hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
        elif path.is_dir():
            digest.update(f"dir {rel}\n".encode())
        else:
            digest.update(f"other {rel}\n".encode())
    return digest.hexdigest()


def _entries(folder: Path) -> list[Path]:
    found: list[Path] = []
    for path in folder.iterdir():
        if path.name in _SKIPPED:
            continue
        found.append(path)
        if path.is_dir() and not path.is_symlink():
            found.extend(_entries(path))
    return found


def comfyui_custom_nodes(comfyui_dir: Path) -> Path:
    """The ``custom_nodes`` folder of ``comfyui_dir``, or a plain refusal if it is not ComfyUI."""
    if not comfyui_dir.is_dir():
        raise InputError(f"{comfyui_dir} is not a folder")
    custom_nodes = comfyui_dir / "custom_nodes"
    if not (comfyui_dir / "main.py").is_file() or not custom_nodes.is_dir():
        raise InputError(
            f"{comfyui_dir} does not look like ComfyUI (no main.py and custom_nodes folder in it)"
        )
    return custom_nodes


def install(comfyui_dir: Path, *, force: bool = False, name: str = FOLDER_NAME) -> Installed:
    """Copy the extension into ``comfyui_dir/custom_nodes/name``.

    Raises:
        InputError: not a ComfyUI folder; a changed copy, a link or a file in the way (without
            ``force``); the name is not a plain folder name.
    """
    if not name or name in {".", ".."} or "/" in name or "\\" in name:
        raise InputError(f"{name!r} is not a folder name")
    source = source_folder()
    custom_nodes = comfyui_custom_nodes(comfyui_dir)
    target = custom_nodes / name
    kept_aside: Path | None = None
    outcome = "installed"
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        what = "a link" if target.is_symlink() else "a file, not a folder"
        if not force:
            raise InputError(
                f"{target} is {what}; remove it, or use --force (or --name for another folder)"
            )
        target.unlink()
        outcome = "replaced"
    elif target.is_dir():
        current = folder_digest(target)
        if current == folder_digest(source):
            return Installed(target, "unchanged")
        if current not in SHIPPED_DIGESTS:
            if not force:
                raise InputError(
                    f"{target} was changed since Batchline installed it; keep it, or use "
                    "--force (your copy is set aside) or --name for another folder"
                )
            kept_aside = _aside(target)
        outcome = "updated"
    _copy_in(source, target, kept_aside is None)
    return Installed(target, outcome, kept_aside)


def _aside(target: Path) -> Path:
    number = 1
    while (aside := target.with_name(f"{target.name}.{number}.disabled")).exists():
        number += 1
    target.rename(aside)
    return aside


def _copy_in(source: Path, target: Path, replace_old: bool) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        fresh = staging / target.name
        shutil.copytree(source, fresh, ignore=shutil.ignore_patterns(*_SKIPPED))
        if replace_old and target.is_dir() and not target.is_symlink():
            old = staging / "old"
            target.rename(old)
        fresh.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)

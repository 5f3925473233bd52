"""Trim the bundle: Qt plugins a desktop Widgets app never loads, and libraries only they need."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

Entry = tuple[str, str, str]  # PyInstaller TOC entry: (destination, source, type code)

# GTK theme (pulls the build host's GTK/pango/cairo stack; Qt falls back to the XDG portal
# theme), embedded-Linux platforms (eglfs, linuxfb, vnc, Vulkan display) and evdev input.
UNUSED_PLUGINS = (
    "plugins/platformthemes/libqgtk3",
    "plugins/platforms/libqeglfs",
    "plugins/platforms/libqlinuxfb",
    "plugins/platforms/libqminimalegl",
    "plugins/platforms/libqvkkhrdisplay",
    "plugins/platforms/libqvnc",
    "plugins/egldeviceintegrations/",
    "plugins/generic/",
)


def unused_plugin(destination: str) -> bool:
    path = destination.replace("\\", "/")
    return any(part in path for part in UNUSED_PLUGINS)


def trim_binaries(
    binaries: Iterable[Entry], imports_of: Callable[[str], Iterable[str]]
) -> tuple[list[Entry], list[str]]:
    """Drop unused plugins and the shared libraries nothing else imports; what was dropped.

    ``imports_of(source)`` names every library a binary loads (ldd: the whole closure).
    """
    entries = list(binaries)
    dropped = [e for e in entries if unused_plugin(e[0])]
    kept = [e for e in entries if not unused_plugin(e[0])]
    wanted_by_dropped = _names(dropped, imports_of)
    still_needed = _names(kept, imports_of)
    orphans = wanted_by_dropped - still_needed
    result = [e for e in kept if PurePosixPath(e[0].replace("\\", "/")).name not in orphans]
    names = sorted({PurePosixPath(e[0].replace("\\", "/")).name for e in dropped} | orphans)
    return result, names


def _names(entries: list[Entry], imports_of: Callable[[str], Iterable[str]]) -> set[str]:
    found: set[str] = set()
    for _dest, source, kind in entries:
        if kind in ("BINARY", "EXTENSION"):
            found.update(PurePosixPath(name).name for name in imports_of(source))
    return found


def ldd_imports(source: str) -> list[str]:
    """Library names ``source`` loads, with PyInstaller's own ldd/pefile/macholib reader."""
    from PyInstaller.depend.bindepend import get_imports

    try:
        return [name for name, _path in get_imports(source)]
    except Exception:  # an unreadable binary: keep everything it might need
        return []

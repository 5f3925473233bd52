"""Whether a GUI can start here, as one line for the terminal when it cannot (no Qt imports)."""

from __future__ import annotations

import ctypes.util
import os
import re
import sys

HEADLESS_PLATFORMS = frozenset({"offscreen", "minimal", "vnc"})

# Shared libraries Qt needs on Linux that minimal systems lack, with the Debian/Ubuntu package.
LIBRARY_PACKAGES = {
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libOpenGL.so.0": "libopengl0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
}
# What the xcb platform plugin loads on top (Qt 6.5+ needs xcb-cursor).
XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0",
    "xkbcommon-x11": "libxkbcommon-x11-0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-keysyms": "libxcb-keysyms1",
}


def display_problem(environ: dict[str, str] | None = None, platform: str = sys.platform) -> str:
    """One line saying why no window can be shown, or "" when one can."""
    env = os.environ if environ is None else environ
    qpa = env.get("QT_QPA_PLATFORM", "").split(":")[0]
    if qpa in HEADLESS_PLATFORMS or not platform.startswith("linux"):
        return ""
    if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        return (
            "batchline gui: no display (DISPLAY and WAYLAND_DISPLAY are unset): run it in a "
            "desktop session, or under Xvfb (xvfb-run batchline gui), or set "
            "QT_QPA_PLATFORM=offscreen"
        )
    if qpa in ("", "xcb") and not env.get("WAYLAND_DISPLAY"):
        return missing_xcb_libraries()
    return ""


def missing_xcb_libraries() -> str:
    missing = [pkg for lib, pkg in XCB_LIBRARIES.items() if ctypes.util.find_library(lib) is None]
    if not missing:
        return ""
    return (
        "batchline gui: Qt's X11 support needs system libraries that are missing: install "
        f"{' '.join(missing)} (e.g. sudo apt install {' '.join(missing)})"
    )


def missing_library_message(exc: ImportError) -> str:
    """The one line for a Qt import that failed on a missing shared library."""
    text = str(exc)
    match = re.search(r"(lib[\w.+-]+\.so[\w.]*)", text)
    library = match.group(1) if match else ""
    package = LIBRARY_PACKAGES.get(library)
    if package:
        return (
            f"batchline gui: Qt needs the system library {library}: install {package} "
            f"(e.g. sudo apt install {package})"
        )
    return f"batchline gui: Qt cannot be loaded ({text.splitlines()[0] if text else exc!r})"

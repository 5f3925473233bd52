"""packaging/trim.py: unused Qt plugins go, and the libraries only they load, nothing else."""

from __future__ import annotations

import importlib.util
from pathlib import Path

# Loaded by path: the folder name `packaging` is taken by the PyPA library on sys.path.
_SPEC = importlib.util.spec_from_file_location(
    "batchline_trim", Path(__file__).resolve().parents[2] / "packaging" / "trim.py"
)
assert _SPEC is not None
assert _SPEC.loader is not None
trim = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(trim)

GTK = "PySide6/Qt/plugins/platformthemes/libqgtk3.so"
XCB = "PySide6/Qt/plugins/platforms/libqxcb.so"
IMPORTS = {
    "src/libqgtk3.so": ["libgtk-3.so.0", "libpango-1.0.so.0", "libglib-2.0.so.0"],
    "src/libqxcb.so": ["libxcb-cursor.so.0", "libglib-2.0.so.0"],
}


def entries() -> list[tuple[str, str, str]]:
    return [
        (GTK, "src/libqgtk3.so", "BINARY"),
        (XCB, "src/libqxcb.so", "BINARY"),
        ("libgtk-3.so.0", "/usr/lib/libgtk-3.so.0", "BINARY"),
        ("libpango-1.0.so.0", "/usr/lib/libpango-1.0.so.0", "BINARY"),
        ("libglib-2.0.so.0", "/usr/lib/libglib-2.0.so.0", "BINARY"),
        ("libpango-1.0.so.0.link", "libpango-1.0.so.0", "SYMLINK"),
    ]


def test_unused_plugins_and_their_only_libraries_are_dropped() -> None:
    kept, dropped = trim.trim_binaries(entries(), lambda src: IMPORTS.get(src, []))
    names = [dest for dest, _src, _kind in kept]
    assert names == [XCB, "libglib-2.0.so.0", "libpango-1.0.so.0.link"]
    assert dropped == ["libgtk-3.so.0", "libpango-1.0.so.0", "libqgtk3.so"]


def test_platforms_the_app_uses_are_kept() -> None:
    for plugin in ("libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqminimal.so"):
        assert not trim.unused_plugin(f"PySide6/Qt/plugins/platforms/{plugin}")
    assert trim.unused_plugin("PySide6\\Qt\\plugins\\platforms\\libqvnc.so")
    assert trim.unused_plugin("PySide6/Qt/plugins/generic/libqevdevmouseplugin.so")

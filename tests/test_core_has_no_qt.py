"""`core` must never import Qt, qasync, `desktop`, `simulator` or `cli`: checked in a fresh
interpreter, so that an import made at run time (importlib) is caught too, which the import
contracts cannot see."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHECK = r"""
import importlib, pkgutil, sys

class Blocker:
    BLOCKED = ("PySide6", "shiboken6", "qasync", "desktop", "simulator", "cli")

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.BLOCKED:
            raise ImportError(f"core must not import {name}")
        return None

sys.meta_path.insert(0, Blocker())
import core
failures = []
for info in pkgutil.walk_packages(core.__path__, "core."):
    try:
        importlib.import_module(info.name)
    except ImportError as exc:
        failures.append(f"{info.name}: {exc}")
print("\n".join(failures))
sys.exit(1 if failures else 0)
"""


def test_no_core_module_imports_qt() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_check_catches_a_qt_import(tmp_path: Path) -> None:
    """The blocker itself works: a module importing PySide6 is reported."""
    pkg = tmp_path / "core"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bad.py").write_text("import PySide6.QtCore\n")
    result = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert "core.bad: core must not import PySide6" in result.stdout

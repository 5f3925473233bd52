"""docs/architecture.md's folder tree names every module under core/, simulator/ and desktop/,
and no module that is not there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tree_text() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    start = text.index("```\ncore/\n")
    return text[start : text.index("```\n", start + 4)]


def test_the_tree_names_every_module_of_core_simulator_and_desktop() -> None:
    named = set(re.findall(r"\b[a-z_0-9]+\.py\b", tree_text()))
    modules = [
        path
        for package in ("core", "simulator", "desktop")
        for path in (ROOT / package).rglob("*.py")
        if path.name != "__init__.py"
    ]
    assert sorted(str(p.relative_to(ROOT)) for p in modules if p.name not in named) == []


def test_the_tree_names_no_module_that_is_gone() -> None:
    named = set(re.findall(r"\b[a-z_0-9]+\.py\b", tree_text()))
    there = {
        path.name
        for package in ("core", "simulator", "desktop", "cli")
        for path in (ROOT / package).rglob("*.py")
    }
    assert sorted(named - there) == []

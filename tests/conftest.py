"""Test-wide settings: offscreen Qt, GUI auto-marking, shared data paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Qt must pick its platform before any QApplication exists.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

DATA = Path(__file__).parent / "data"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses a Qt application as `gui`, so `-m "not gui"` is headless."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "qapp" in fixtures or "qtbot" in fixtures:
            item.add_marker(pytest.mark.gui)


@pytest.fixture
def data_dir() -> Path:
    """The folder of test data copied from ../shared (recordings, workflows, PNGs)."""
    return DATA

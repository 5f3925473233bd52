"""Tests for core.paths: which ledger folder, from --data-dir, $BATCHLINE_HOME or the user's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.errors import InputError
from core.paths import HOME_ENV, LEDGER_FILE, data_dir, default_output_dir, ledger_path


def test_the_option_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HOME_ENV, "/from/env")
    assert data_dir("/from/option") == Path("/from/option")
    assert data_dir() == Path("/from/env")
    assert data_dir("~/x") == Path.home() / "x"
    monkeypatch.delenv(HOME_ENV)
    assert data_dir().name == "Batchline"
    assert ledger_path(Path("/d")) == Path("/d") / LEDGER_FILE


def test_an_empty_folder_is_a_mistake_not_the_artists_real_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(InputError, match="--data-dir is empty"):
        data_dir(" ")
    monkeypatch.setenv(HOME_ENV, "")
    with pytest.raises(InputError, match=r"\$BATCHLINE_HOME is empty"):
        data_dir()


def test_the_default_output_folder_under_test_is_the_suites_own() -> None:
    """A test that runs a controller without an output folder of its own (the default: the
    user's Pictures folder) writes into the suite's sandbox (tests/conftest.py), never into the
    Pictures folder of whoever runs the suite."""
    sandbox = Path(os.environ["XDG_CONFIG_HOME"]).parent
    assert default_output_dir() == sandbox / "Pictures" / "Batchline"
    assert not default_output_dir().is_relative_to(Path.home())

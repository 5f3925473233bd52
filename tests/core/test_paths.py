"""Tests for core.paths: which ledger folder, from --data-dir, $BATCHLINE_HOME or the user's."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import InputError
from core.paths import HOME_ENV, LEDGER_FILE, data_dir, ledger_path


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

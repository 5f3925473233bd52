"""Where Batchline keeps its files: the ledger folder and the default output folder."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from core.errors import InputError

APP_NAME = "Batchline"
HOME_ENV = "BATCHLINE_HOME"
LEDGER_FILE = "ledger.sqlite3"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The ledger folder: ``override`` (``--data-dir``), else $BATCHLINE_HOME, else the user's.

    Raises:
        InputError: ``override`` or $BATCHLINE_HOME is given but empty: that is a mistake (an
            unset variable in a script), never a reason to use the artist's real folder.
    """
    if override is not None:
        return _named_folder(os.fspath(override), "--data-dir")
    env = os.environ.get(HOME_ENV)
    if env is not None:
        return _named_folder(env, f"${HOME_ENV}")
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def _named_folder(text: str, source: str) -> Path:
    if not text.strip():
        raise InputError(f"{source} is empty: name the data folder (or leave it out)")
    return Path(text).expanduser()


def ledger_path(folder: Path) -> Path:
    return folder / LEDGER_FILE


def default_output_dir() -> Path:
    """The user's Pictures folder / Batchline."""
    return Path(platformdirs.user_pictures_dir()) / APP_NAME


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))

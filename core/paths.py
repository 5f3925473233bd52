"""Where Batchline keeps its files: the ledger folder and the default output folder."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "Batchline"
HOME_ENV = "BATCHLINE_HOME"
LEDGER_FILE = "ledger.sqlite3"


def data_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The ledger folder: ``override`` (``--data-dir``), else $BATCHLINE_HOME, else the user's."""
    if override:
        return Path(override).expanduser()
    env = os.environ.get(HOME_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def ledger_path(folder: Path) -> Path:
    return folder / LEDGER_FILE


def default_output_dir() -> Path:
    """The user's Pictures folder / Batchline."""
    return Path(platformdirs.user_pictures_dir()) / APP_NAME


def cache_dir() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))

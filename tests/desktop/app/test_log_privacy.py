"""The app's log folder and log files are readable by the user only."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import platformdirs
import pytest
from PySide6.QtCore import qInstallMessageHandler

from desktop.app.logs import install_logging

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_log_and_its_folder_are_the_users_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "batchline.log").write_text("older\n")
    (folder / "batchline.log").chmod(0o644)  # as an older Batchline left it
    monkeypatch.setattr(platformdirs, "user_log_dir", lambda *_args, **_kwargs: str(folder))
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    qt_handler = qInstallMessageHandler(None)
    try:
        install_logging(verbose=True)  # leaves the httpx logger as it is
        (handler,) = root.handlers[len(handlers) :]
        assert isinstance(handler, logging.handlers.RotatingFileHandler)
        logging.getLogger("batchline.gui").info("before the rotation")
        assert mode(folder / "batchline.log") == 0o600
        handler.doRollover()  # a new file, and the old one moved to .1
        logging.getLogger("batchline.gui").info("after the rotation")
        assert mode(folder / "batchline.log") == 0o600
        assert mode(folder / "batchline.log.1") == 0o600
    finally:
        for added in root.handlers[len(handlers) :]:
            root.removeHandler(added)
            added.close()
        root.setLevel(level)
        qInstallMessageHandler(qt_handler)


def test_a_new_log_folder_is_the_users_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "new" / "logs"
    monkeypatch.setattr(platformdirs, "user_log_dir", lambda *_args, **_kwargs: str(folder))
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    qt_handler = qInstallMessageHandler(None)
    try:
        assert install_logging(verbose=True) == folder
        assert mode(folder) == 0o700
    finally:
        for added in root.handlers[len(handlers) :]:
            root.removeHandler(added)
            added.close()
        root.setLevel(level)
        qInstallMessageHandler(qt_handler)

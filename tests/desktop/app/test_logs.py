"""The app's log file: debug messages are written, a token in an Authorization header is not."""

from __future__ import annotations

import logging
from pathlib import Path

import platformdirs
import pytest
from PySide6.QtCore import qInstallMessageHandler

from desktop.app.logs import install_logging

TOKEN = "tok-for-the-log-file"


def test_the_log_file_never_holds_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platformdirs, "user_log_dir", lambda *_args, **_kwargs: str(tmp_path))
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    qt_handler = qInstallMessageHandler(None)
    try:
        assert install_logging(verbose=True) == tmp_path
        # as websockets logs a handshake, and a library that logs a request's headers
        logging.getLogger("websockets.client").debug("> %s: %s", "Authorization", f"Bearer {TOKEN}")
        logging.getLogger("httpx").debug("headers %r", {"authorization": f"Bearer {TOKEN}"})
    finally:
        for handler in root.handlers[len(handlers) :]:
            root.removeHandler(handler)
            handler.close()
        root.setLevel(level)
        qInstallMessageHandler(qt_handler)
    text = (tmp_path / "batchline.log").read_text(encoding="utf-8")
    assert "> Authorization: <redacted>" in text
    assert "headers {'authorization': '<redacted>'}" in text
    assert TOKEN not in text

"""The app's log file: debug messages are written, a token in an Authorization header is not."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import platformdirs
import pytest
import shiboken6
from PySide6.QtCore import qInstallMessageHandler

from desktop.app.logs import error_sentence, install_excepthook, install_logging
from desktop.sheet.flow_layout import FlowRow

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


@pytest.mark.expect_log("batchline.gui", "ERROR")
def test_an_unexpected_error_is_one_sentence_naming_the_part_and_its_traceback_goes_to_the_log(
    qtbot, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    install_excepthook(shown.append)
    flow = FlowRow()
    shiboken6.delete(flow)  # the crash's kind: a C++ object Qt deleted, used from Python
    try:
        flow.shown()
    except RuntimeError:
        sys.excepthook(*sys.exc_info())  # as Qt's event loop hands an uncaught one over
    assert shown == [
        "Something went wrong in the picture sheet; your jobs are safe (details in the log)."
    ]
    assert "already deleted" not in shown[0]
    assert "Traceback" in caplog.text
    assert "flow_layout.py" in caplog.text
    assert "already deleted" in caplog.text, "the details are in the log"


def test_an_error_outside_the_window_s_parts_names_the_window() -> None:
    with pytest.raises(ValueError, match="no part") as raised:
        raise ValueError("no part")
    assert error_sentence(raised.tb).startswith("Something went wrong in the window;")

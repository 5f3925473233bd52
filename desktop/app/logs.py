"""Logging for the GUI: a rotating file in the user log folder, Qt messages, uncaught errors."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs
from PySide6.QtCore import QtMsgType, qInstallMessageHandler

from core.comfy import RedactAuthorization

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType

log = logging.getLogger("batchline.gui")
_QT_LEVELS = {
    QtMsgType.QtDebugMsg: logging.DEBUG,
    QtMsgType.QtInfoMsg: logging.INFO,
    QtMsgType.QtWarningMsg: logging.WARNING,
    QtMsgType.QtCriticalMsg: logging.ERROR,
    QtMsgType.QtFatalMsg: logging.CRITICAL,
}


def install_logging(verbose: bool = False) -> Path | None:
    """Log to <user log dir>/batchline.log and route Qt's messages into logging."""
    path = Path(platformdirs.user_log_dir("Batchline", appauthor=False))
    folder: Path | None = path  # None: logging to stderr only
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        handler: logging.Handler = _PrivateLog(
            path / "batchline.log", maxBytes=2_000_000, backupCount=3, encoding="utf-8"
        )
    except OSError:
        handler, folder = logging.StreamHandler(), None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactAuthorization())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    if not verbose:  # one line per HTTP request is noise in the artist's log
        logging.getLogger("httpx").setLevel(logging.WARNING)
    qInstallMessageHandler(_qt_message)
    return folder


def _qt_message(kind: QtMsgType, _context: Any, message: str) -> None:
    logging.getLogger("qt").log(_QT_LEVELS.get(kind, logging.WARNING), message)


def install_excepthook(show: Callable[[str], None]) -> None:
    """Log uncaught exceptions (qasync sends async-slot errors here) and show them."""

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        log.error("uncaught exception", exc_info=(kind, exc, tb))
        with contextlib.suppress(RuntimeError):  # the window may already be gone
            show(f"Unexpected error: {exc or kind.__name__} (details in the log)")

    sys.excepthook = hook


class _PrivateLog(RotatingFileHandler):
    """A rotating log file that only its owner may read (each file after a rotation too)."""

    def _open(self) -> Any:
        return open(
            self.baseFilename,
            self.mode,
            encoding=self.encoding,
            errors=self.errors,
            opener=_owner_only,
        )


def _owner_only(path: str, flags: int) -> int:
    handle = os.open(path, flags, 0o600)
    if hasattr(os, "fchmod"):  # a log an older Batchline left readable by others
        os.fchmod(handle, 0o600)
    return handle

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


# The window's parts, by the folder of desktop/ whose code raised (the innermost frame there).
_PARTS = {
    "sheet": "the picture sheet",
    "composer": "the composer",
    "viewer": "the viewer",
    "jobs": "the jobs table",
    "presets": "the presets list",
    "settings": "the settings",
}
_WINDOW = "the window"


def install_excepthook(show: Callable[[str], None]) -> None:
    """Log uncaught exceptions (qasync sends async-slot errors here) with their traceback, and
    tell the artist in one plain sentence naming the part of the window: never the traceback,
    nor the exception's own words (a C++ object "already deleted" means nothing to an artist)."""

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        log.error("uncaught exception", exc_info=(kind, exc, tb))
        with contextlib.suppress(RuntimeError):  # the window may already be gone
            show(error_sentence(tb))

    sys.excepthook = hook


def error_sentence(tb: TracebackType | None) -> str:
    """What the artist reads of an unexpected error raised along ``tb``."""
    return f"Something went wrong in {part_of(tb)}; your jobs are safe (details in the log)."


def part_of(tb: TracebackType | None) -> str:
    """The part of the window whose code raised: the innermost frame in desktop/ decides."""
    part = _WINDOW
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        folders = module.split(".")
        if folders[0] == "desktop":
            part = _PARTS.get(folders[1], _WINDOW) if len(folders) > 2 else _WINDOW
        tb = tb.tb_next
    return part


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

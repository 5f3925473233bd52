"""The desktop application's entry point: display checks, QApplication, the qasync loop.

Only standard-library and display-check imports at module level, so that a missing Qt system
library becomes a one-line message instead of a traceback.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, Any

from desktop.app.display import display_problem, missing_library_message

if TYPE_CHECKING:
    import argparse

    from desktop.app.session import SessionOptions

log = logging.getLogger(__name__)
EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def run(args: argparse.Namespace) -> int:
    """Run the GUI until the artist quits; the exit code."""
    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    try:
        from desktop.app.session import SessionOptions, run_app
    except ImportError as exc:
        print(missing_library_message(exc), file=sys.stderr)
        return EXIT_USAGE
    options = SessionOptions.from_args(args)
    return _run_qt(run_app, options)


def _run_qt(run_app: Any, options: SessionOptions) -> int:
    import qasync
    from PySide6.QtWidgets import QApplication

    from desktop.app.logs import install_logging

    install_logging(options.verbose)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("Batchline")
    app.setQuitOnLastWindowClosed(False)
    try:
        code: int = qasync.run(run_app(app, options))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last resort: one line here, the traceback in the log
        log.exception("the application failed")
        print(f"batchline gui: {exc or type(exc).__name__} (details in the log)", file=sys.stderr)
        return EXIT_FAILURE
    return code

"""`batchline gui`: start the desktop application (the default command), and `--self-test`.

`desktop.app.app` and `desktop.app.self_test` import Qt only when they run, so the other
commands start without loading it (and still work where Qt's system libraries are missing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from desktop.app import app
from desktop.app import self_test as desktop_self_test

if TYPE_CHECKING:
    import argparse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("gui", help="start the desktop application (the default)")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="use the built-in demo server and its own ledger, even if ComfyUI is running",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return app.run(args)


def self_test(args: argparse.Namespace) -> int:
    """`batchline --self-test`: demo jobs on the simulator, the window opened, a JSON report."""
    return desktop_self_test.run(args)

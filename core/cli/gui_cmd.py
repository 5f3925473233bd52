"""`batchline gui`: start the desktop application (the default command).

`core` never imports Qt: the desktop package is imported only when the command runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
    app = importlib.import_module("desktop.app")
    code: int = app.run(args)
    return code

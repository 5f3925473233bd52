"""Entry point of the `batchline` command: global options and dispatch to subcommands.

Each subcommand lives in its own module under `cli` and exposes
``register(subparsers) -> None``, which adds its parser and sets ``func`` to a callable
taking the parsed ``argparse.Namespace`` and returning an exit code.
"""

from __future__ import annotations

import argparse
import logging
import sqlite3
import sys
from typing import TYPE_CHECKING

from peewee import PeeweeException

from cli import (
    again_cmd,
    batches_cmd,
    comfyui_extension_cmd,
    control_cmd,
    grid_cmd,
    gui_cmd,
    init_cmd,
    jobs_cmd,
    marks_cmd,
    name_cmd,
    origins_cmd,
    preset_cmd,
    queue_cmd,
    run_cmd,
    search_cmd,
    servers_cmd,
    simulate_cmd,
    tokens_cmd,
)
from cli.terminal import safe_output
from core import __version__
from core.comfy import RedactAuthorization
from core.errors import BatchlineError, InputError
from core.ledger.sqlite_errors import ledger_failure
from core.paths import data_dir, ledger_path

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

# Subcommand modules, in the order `--help` lists them.
COMMAND_MODULES: tuple[ModuleType, ...] = (
    gui_cmd,
    simulate_cmd,
    preset_cmd,
    queue_cmd,
    again_cmd,
    run_cmd,
    jobs_cmd,
    batches_cmd,
    grid_cmd,
    marks_cmd,
    name_cmd,
    search_cmd,
    control_cmd,
    servers_cmd,
    tokens_cmd,
    comfyui_extension_cmd,
    origins_cmd,
    init_cmd,
)

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"batchline: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="batchline", description="Batch runner for ComfyUI.")
    parser.add_argument("--version", action="version", version=f"batchline {__version__}")
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        help="ledger folder (default: $BATCHLINE_HOME, else the user data folder)",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        help="ComfyUI address for this invocation (several, comma-separated: `run` drives all)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="check this installation: run 3 demo jobs, open the window, print a JSON report",
    )
    parser.add_argument("--report", metavar="PATH", help="also write the --self-test report here")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    with safe_output():  # server and file text never drives the terminal
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = logging.StreamHandler()
    handler.addFilter(RedactAuthorization())
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[handler],
    )
    func = getattr(args, "func", None)
    if args.self_test:
        func = gui_cmd.self_test
    elif func is None:  # no command: the desktop application
        func = gui_cmd.run
    try:
        code: int = func(args)
    except InputError as exc:
        print(f"batchline: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BatchlineError as exc:
        print(f"batchline: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except (sqlite3.Error, PeeweeException) as exc:  # the ledger failed (damaged, disk full)
        path = ledger_path(data_dir(args.data_dir))
        print(f"batchline: {ledger_failure(exc, path) or exc}", file=sys.stderr)
        return EXIT_FAILURE
    except OSError as exc:  # a file or folder the command could not read or write
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"batchline: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILURE
    except UnicodeEncodeError as exc:  # a name or id from the command line that is not text
        text = exc.object if isinstance(exc.object, str) else repr(exc.object)
        print(f"batchline: {text!r} is not valid UTF-8 text", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())

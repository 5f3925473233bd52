"""Helpers shared by the CLI commands: the ledger, the server, JSON and time formatting."""

from __future__ import annotations

import contextlib
import json
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from core.batch.varied import value_text
from core.comfy import server_address
from core.controller.commands import LedgerCommands
from core.errors import InputError, UnknownRecord
from core.ledger import Ledger
from core.ledger.settings import SERVER, Settings, server_list
from core.paths import data_dir

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator, Mapping


def open_ledger(args: argparse.Namespace) -> Ledger:
    """The ledger in ``--data-dir`` (else $BATCHLINE_HOME, else the user data folder): made
    only on a first start (``Ledger.open_existing``), said in one line; a missing one refused."""
    ledger = Ledger.open_existing(data_dir(args.data_dir))
    if ledger.created:
        say_created(ledger)
    return ledger


def say_created(ledger: Ledger) -> None:
    warn(f"a new, empty ledger was made at {ledger.path}")


@contextlib.contextmanager
def names_from_user() -> Iterator[None]:
    """Unknown jobs, batches and presets named on the command line are input errors (exit 2)."""
    try:
        yield
    except UnknownRecord as exc:
        raise InputError(str(exc)) from None


def server_urls(args: argparse.Namespace, ledger: Ledger) -> list[str]:
    """``--server``, else the stored setting, else ComfyUI's default address (one or more),
    each checked and normalised.

    Raises:
        InputError: ``--server`` names no server, or an address is not one.
    """
    if args.server is not None and not server_list(args.server):
        raise InputError(f"--server names no server: {args.server!r}")
    texts = server_list(args.server) if args.server else Settings(server=SERVER.get(ledger)).servers
    try:
        return [server_address(text) for text in texts]
    except ValueError as exc:
        raise InputError(str(exc)) from None


def queue_commands(args: argparse.Namespace, ledger: Ledger) -> LedgerCommands:
    """The commands, knowing how many servers share the queue (backpressure's wait)."""
    return LedgerCommands(ledger, servers=len(server_urls(args, ledger)))


def server_url(args: argparse.Namespace, ledger: Ledger) -> str:
    """The first server: the one asked for its node catalogue."""
    return server_urls(args, ledger)[0]


def short_time(timestamp: float | None) -> str:
    """A ledger time for people: local ``HH:MM:SS``, or a dash."""
    if timestamp is None:
        return "-"
    return datetime.fromtimestamp(timestamp).strftime("%H:%M:%S")


def print_json(value: Any) -> None:
    """A list one item per line (100,000 jobs print in seconds, and grep finds a job's line);
    anything else indented."""
    if isinstance(value, list):
        items = ",\n".join(json.dumps(item, ensure_ascii=False) for item in value)
        sys.stdout.write(f"[\n{items}\n]\n" if value else "[]\n")
    else:
        sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def warn(message: str) -> None:
    """One line on stderr, prefixed like the error messages."""
    print(f"batchline: {message}", file=sys.stderr)


LINE_BREAK = "⏎"  # a text's line break, where its value is shown on one line


def format_params(params: Mapping[str, Any]) -> str:
    """``KEY=VALUE ...`` in key order on one line, each value as people read it
    (``core.batch.varied.value_text``: a picture by its file's name), a text's line breaks
    shown as ⏎."""
    return " ".join(f"{key}={one_line(value)}" for key, value in sorted(params.items())) or "-"


def one_line(value: Any) -> str:
    """``value_text(value)`` with its line breaks shown as ⏎."""
    return LINE_BREAK.join(value_text(value).splitlines())

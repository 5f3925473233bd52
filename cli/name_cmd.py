"""`batchline name BATCH [NAME]`: give a batch a name (none: take its name off), as the window's
Name batch does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cli.common import names_from_user, open_ledger
from core.controller.commands import LedgerCommands
from core.names import MAX_NAME

if TYPE_CHECKING:
    import argparse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "name",
        help="name a batch (without NAME: take its name off)",
        description="Give the batch a name, shown with its id in the window "
        f"(at most {MAX_NAME} characters).",
    )
    parser.add_argument("batch", metavar="BATCH", help="the batch id")
    parser.add_argument("name", nargs="?", default="", metavar="NAME")
    parser.set_defaults(func=name_batch)


def name_batch(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, names_from_user():
        batch = LedgerCommands(ledger).name_batch(args.batch, args.name)
    print(f"{batch.id}: {batch.name}" if batch.name else f"{batch.id}: no name")
    return 0

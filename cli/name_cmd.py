"""`batchline name BATCH [NAME]`: give a batch a name (none: its default title again, its preset
and what varies), as the window's Name batch does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cli.common import names_from_user, open_ledger
from core.batch.batch_title import batch_title
from core.controller.commands import LedgerCommands
from core.names import MAX_NAME

if TYPE_CHECKING:
    import argparse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "name",
        help="name a batch (without NAME: its default title again)",
        description="Give the batch a name, shown in the window and by `batchline batches` "
        f"(at most {MAX_NAME} characters); without NAME it is called by its preset and what "
        "it varies again.",
    )
    parser.add_argument("batch", metavar="BATCH", help="the batch id")
    parser.add_argument("name", nargs="?", default="", metavar="NAME")
    parser.set_defaults(func=name_batch)


def name_batch(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, names_from_user():
        batch = LedgerCommands(ledger).name_batch(args.batch, args.name)
        title = batch_title(ledger, batch)
    print(f"{batch.id}: {title}" if batch.name else f"{batch.id}: {title} (by what it varies)")
    return 0

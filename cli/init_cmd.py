"""`batchline init`: make a new, empty ledger in the data folder, where none is.

Every other command refuses a missing ledger (one deleted or moved away is never silently
replaced by an empty one) unless the folder never held one (a first start); this is how a new
one is started where an old one was."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cli.common import say_created
from core.ledger import Ledger
from core.paths import data_dir

if TYPE_CHECKING:
    import argparse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "init",
        help="make a new, empty ledger in the data folder (where there is none)",
        description="Make a new, empty ledger in the data folder; an existing one is kept.",
    )
    parser.set_defaults(func=init)


def init(args: argparse.Namespace) -> int:
    with Ledger(data_dir(args.data_dir)) as ledger:
        if ledger.created:
            say_created(ledger)
        else:
            print(f"the ledger at {ledger.path} is kept: it exists already")
    return 0

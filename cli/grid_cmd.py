"""`batchline grid BATCH`: an X/Y grid batch as one labelled picture (one per seed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.common import names_from_user, open_ledger
from core.ledger.settings import Settings
from core.pictures.grid_sheet import export

if TYPE_CHECKING:
    import argparse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "grid",
        help="write an X/Y grid batch as one labelled picture",
        description="Write the batch's X/Y grid as one picture, its axis names and values on "
        "the edges (one picture per seed when the batch varies its seed too). Nothing is "
        "written over: a taken name gets -2, -3 ...",
    )
    parser.add_argument("batch", help="the batch id")
    parser.add_argument(
        "--to", type=Path, metavar="DIR", help="folder (default: the batch's picture folder)"
    )
    parser.set_defaults(func=write_grid)


def write_grid(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, names_from_user():
        folder = args.to or Settings.load(ledger).output_folder / args.batch
        for path in export(ledger, args.batch, folder):
            print(path)
    return 0

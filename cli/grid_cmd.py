"""`batchline grid BATCH`: a grid batch as labelled pictures, one per page (a value of each
axis past the second, a seed when the batch varies it)."""

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
        help="write a grid batch as labelled pictures, one per page",
        description="Write the batch's grid as one picture, its first axis across, its second "
        "down, their names and values on the edges. A third axis and more, and the seed when "
        "the batch varies it, make pages: one picture each, named by its values "
        "(BATCH_grid_steps-20_seed-1.png). A zipped group of axes is one axis. Nothing is "
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

"""`batchline mark`, `batchline starred` and `batchline rejected`: the artist's picks, kept in
the ledger."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.common import names_from_user, open_ledger
from core.controller.commands import LedgerCommands
from core.ledger.marks import Mark
from core.ledger.settings import EXPORT_SIDECAR
from core.pictures.picks import export_marked, marked_pictures
from core.pictures.trash import trash_rejected

if TYPE_CHECKING:
    import argparse


def register(subparsers: Any) -> None:
    mark = subparsers.add_parser("mark", help="star or reject jobs' pictures (kept in the ledger)")
    mark.add_argument("jobs", nargs="+", metavar="JOB", help="job ids")
    verdict = mark.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--star", action="store_const", const=Mark.star, dest="mark")
    verdict.add_argument("--reject", action="store_const", const=Mark.reject, dest="mark")
    verdict.add_argument("--clear", action="store_const", const="", dest="mark")
    mark.set_defaults(func=set_marks)
    starred = subparsers.add_parser(
        "starred",
        help="copy a batch's starred pictures to a folder",
        description="Copy the pictures of the batch's starred jobs into DIR under their own "
        "names; nothing is written over (a taken name gets -2, -3 ...). Each PNG keeps "
        "ComfyUI's workflow and gets the A1111 `parameters` text image browsers and Civitai "
        "read; its pixels are not touched.",
    )
    starred.add_argument("batch", help="the batch id")
    starred.add_argument("--to", type=Path, required=True, metavar="DIR", help="the folder")
    starred.add_argument(
        "--sidecar",
        action="store_true",
        help="also write each picture's parameters as <name>.json beside its copy (always, "
        "with the export.sidecar setting)",
    )
    starred.set_defaults(func=copy_starred)
    rejected = subparsers.add_parser(
        "rejected",
        help="list a batch's rejected pictures, or move them to the trash",
        description="Print the paths of the pictures of the batch's rejected jobs that are still "
        "there; with --trash, move them to the system trash (their jobs stay in the history).",
    )
    rejected.add_argument("batch", help="the batch id")
    rejected.add_argument(
        "--trash", action="store_true", help="move them to the trash, printing each one moved"
    )
    rejected.set_defaults(func=rejected_pictures)


def set_marks(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, names_from_user():
        LedgerCommands(ledger).mark(args.jobs, args.mark or None)
    return 0


def copy_starred(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, names_from_user():
        ledger.batch(args.batch)  # an unknown batch is said as such, not as "none starred"
        sidecar = args.sidecar or EXPORT_SIDECAR.get(ledger)
        copies = export_marked(ledger, args.batch, args.to, sidecar=sidecar)
    for path in copies:
        print(path)
    if not copies:
        print(f"no starred picture in {args.batch}")
    return 0


def rejected_pictures(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, names_from_user():
        ledger.batch(args.batch)  # an unknown batch is said as such, not as "none rejected"
        if not args.trash:
            paths = marked_pictures(ledger, args.batch, Mark.reject)
            for path in paths:
                print(path)
            if not paths:
                print(f"no rejected picture in {args.batch}")
            return 0
        result = trash_rejected(ledger, args.batch)
    for picture in result.moved:
        print(picture.path)
    for picture, why in result.not_moved:
        print(f"cannot move {picture.path}: {why}", file=sys.stderr)
    if not result.moved and not result.not_moved:
        print(f"no rejected picture in {args.batch}")
    return 1 if result.not_moved else 0

"""`batchline preset versions|restore`: every content a preset has held, and making an old one
current again (as a new version: nothing is lost)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cli.common import names_from_user, open_ledger, print_json, short_time
from core.ledger import PresetOutcome
from core.ledger.job_json import iso
from core.presets.checks import check_name

if TYPE_CHECKING:
    import argparse


def register_verbs(verbs: Any) -> None:
    versions = verbs.add_parser("versions", help="list a preset's versions, oldest first")
    versions.add_argument("name", metavar="NAME")
    versions.add_argument("--json", action="store_true", help="print JSON")
    versions.set_defaults(func=list_versions)

    restore = verbs.add_parser("restore", help="make version N current again (as a new one)")
    restore.add_argument("name", metavar="NAME")
    restore.add_argument("number", metavar="N", type=int, help="the version's number")
    restore.set_defaults(func=restore_version)


def list_versions(args: argparse.Namespace) -> int:
    check_name(args.name)
    with open_ledger(args) as ledger, names_from_user():
        versions = ledger.presets.versions(args.name)
    if args.json:
        print_json(
            [
                {
                    "version": v.number,
                    "workflow_hash": v.workflow_hash,
                    "stored_at": iso(v.created_at),
                    "stored_by": str(v.stored_by),
                    "origin": v.origin,
                    "editor_workflow": v.editor_workflow is not None,
                }
                for v in versions
            ]
        )
        return 0
    for v in versions:
        where = f"\tfrom {v.origin}" if v.origin else ""
        current = "\t(current)" if v is versions[-1] else ""
        print(f"{v.number}\t{short_time(v.created_at)} by {v.stored_by}{where}{current}")
    return 0


def restore_version(args: argparse.Namespace) -> int:
    check_name(args.name)
    with open_ledger(args) as ledger, names_from_user():
        outcome, number = ledger.presets.restore(args.name, args.number)
    if outcome is PresetOutcome.unchanged:
        print(f"unchanged: version {args.number} of {args.name!r} is its content already")
    else:
        print(f"restored: version {args.number} of {args.name!r} is current, as version {number}")
    return 0

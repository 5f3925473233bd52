"""`batchline origins list|add|remove`: the web pages besides the ComfyUI servers in the
settings that may send workflows to the API (the setting api.allowed_origins)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cli.common import open_ledger
from core.api.comfyui_send import allowed_origins, origin_of
from core.errors import InputError
from core.ledger.settings import ALLOWED_ORIGINS, SERVER, server_list

if TYPE_CHECKING:
    import argparse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "origins", help="list, add and remove the web pages that may send workflows to the API"
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    verbs.add_parser("list", help="the pages allowed (the ComfyUI servers, then those added)")
    add = verbs.add_parser("add", help="allow a page, as scheme://host:port")
    add.add_argument("origin", metavar="ORIGIN")
    remove = verbs.add_parser("remove", help="stop allowing a page added before")
    remove.add_argument("origin", metavar="ORIGIN")
    parser.set_defaults(func=origins)


def origins(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        added = server_list(ALLOWED_ORIGINS.get(ledger))
        if args.verb == "list":
            servers = server_list(SERVER.get(ledger))
            for each in sorted(allowed_origins(ledger)):
                print(f"{each}\t{'added' if each in map(origin_of, added) else 'a server'}")
            if not servers:
                print("(no server set: ComfyUI's default address is allowed)")
            return 0
        origin = origin_of(args.origin)
        if origin is None:
            raise InputError(f"{args.origin!r} is not a web page's origin (scheme://host:port)")
        kept = [text for text in added if origin_of(text) != origin]
        if args.verb == "add":
            kept.append(origin)
        elif len(kept) == len(added):
            raise InputError(f"{origin} was not added (a ComfyUI server is removed in Settings)")
        ALLOWED_ORIGINS.set(ledger, ", ".join(kept))
    print(f"{'allowed' if args.verb == 'add' else 'no longer allowed'}: {origin}")
    return 0

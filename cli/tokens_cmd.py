"""`batchline tokens create|list|revoke`: the HTTP API's requesters and their bearer tokens.

A token is printed once, when it is made; the ledger keeps only its hash. The token's name is
the requester of the jobs queued with it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from cli.common import names_from_user, open_ledger, print_json, short_time
from core.ledger.job_json import iso

if TYPE_CHECKING:
    import argparse

    from core.ledger.tokens import TokenRecord


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("tokens", help="create, list and revoke the HTTP API's tokens")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    create = verbs.add_parser("create", help="make a token for a requester (printed once)")
    create.add_argument("name", metavar="NAME", help="the requester the token acts as")
    create.add_argument(
        "--as-local-user",
        action="store_true",
        help="allow NAME to be your own user name: the token then acts on your local jobs",
    )
    create.set_defaults(func=create_token)

    listing = verbs.add_parser("list", help="the requesters that have a token")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=list_tokens)

    revoke = verbs.add_parser("revoke", help="refuse a requester's token from now on")
    revoke.add_argument("name", metavar="NAME")
    revoke.set_defaults(func=revoke_token)


def create_token(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        token = ledger.tokens.create(args.name, as_local_user=args.as_local_user)
    if args.as_local_user:
        print(
            f"note: the token acts as {args.name}, on every job queued here as {args.name} (not "
            "on your presets: those change only here)",
            file=sys.stderr,
        )
    print(token)
    return 0


def list_tokens(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger:
        tokens = ledger.tokens.all()
    if args.json:
        print_json([_token_json(t) for t in tokens])
        return 0
    if not tokens:
        print("no tokens: make one with `batchline tokens create NAME`")
    for t in tokens:
        used = short_time(t.last_used_at)
        print(f"{t.name}\tcreated {short_time(t.created_at)}\tlast used {used}")
    return 0


def _token_json(token: TokenRecord) -> dict[str, Any]:
    return {
        "name": token.name,
        "created_at": iso(token.created_at),
        "last_used_at": iso(token.last_used_at),
    }


def revoke_token(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, names_from_user():
        ledger.tokens.revoke(args.name)
    print(f"revoked: the token of {args.name!r}")
    return 0

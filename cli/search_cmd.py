"""`batchline search QUERY`: every picture of the ledger a search finds, newest first, in the
window's query language (docs/search.md); `batchline searches`: the searches kept by name."""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import Any

from cli.common import names_from_user, open_ledger
from core.ledger.job_json import iso
from core.ledger.picture_index import PictureHit, Place
from core.pictures.search import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    delete_search,
    page_after,
    save_search,
    saved_search,
    saved_searches,
    search,
)

LANGUAGE = """\
the query (every part must hold; docs/search.md has it all):
  fox snow               both words, anywhere: prompts, preset, models, LoRAs, values, batch, ...
  "red fox"   fox*       the words side by side; a word starting so
  -blurry -model:sd15    not this word, not this filter
  prompt:fox negative:blurry preset:portrait model:sdxl lora:detail batch:evening server:gpu-1
  value:euler value:cfg=7.5     a varied value (of its input)
  seed:42 seed:*42 seed:42*     a seed that is, ends with, starts with 42
  is:starred is:rejected is:marked is:unmarked
  date:2026-12-01 date:2026-12 after:2026-12-01 before:2026-12-24   (local dates; after: from
                         that day on, before: up to that day)
Quote the whole query for the shell: batchline search 'fox -snow seed:*42'"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "search",
        help="find pictures by prompt, seed, model, LoRA, value, mark, batch, server or date",
        description="Every picture of the ledger that QUERY finds, newest first (the order "
        "their jobs finished in): one line each (when, job, file), or JSON.",
        epilog=LANGUAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("query", nargs="*", metavar="QUERY", help="the search (none: all)")
    parser.add_argument("--json", action="store_true", help="print the pictures as JSON")
    parser.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"at most N pictures (1 to {MAX_LIMIT}; default {DEFAULT_LIMIT})",
    )
    page = parser.add_mutually_exclusive_group()
    page.add_argument("--offset", type=int, default=0, metavar="N", help="skip the first N")
    page.add_argument(
        "--after",
        type=place,
        metavar="PLACE",
        help='the pictures after the one at PLACE (the "place" of --json\'s last picture): '
        "pages that neither skip nor repeat a picture while new ones finish",
    )
    kept = parser.add_mutually_exclusive_group()
    kept.add_argument("--save", metavar="NAME", help="also keep the query under NAME")
    kept.add_argument("--saved", metavar="NAME", help="run the search kept under NAME")
    parser.set_defaults(func=run_search)
    searches = subparsers.add_parser(
        "searches",
        help="list the searches kept by name (search --save), or forget one",
        description="The saved searches, one a line (name, then query).",
    )
    searches.add_argument("--delete", metavar="NAME", help="forget the search kept under NAME")
    searches.set_defaults(func=list_searches)


def run_search(args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    with open_ledger(args) as ledger, names_from_user():
        if args.saved is not None:
            query = saved_search(ledger, args.saved).query
        if args.save is not None:
            save_search(ledger, args.save, query)
        if args.after is not None:
            hits = page_after(ledger, query, args.after, limit=args.limit)
        else:
            hits = search(ledger, query, limit=args.limit, offset=args.offset)
    if args.json:
        print(json.dumps([hit_json(hit) for hit in hits], indent=2))
    elif hits:
        for hit in hits:
            print(hit_line(hit))
    else:
        print(f"no picture found by {query!r}" if query.strip() else "no picture yet")
    return 0


def hit_json(hit: PictureHit) -> dict[str, Any]:
    """A found picture as JSON (``batchline search --json``)."""
    return {
        "job": hit.job_id,
        "batch": hit.batch_id,
        "index": hit.index,
        "path": str(hit.path),
        "finished_at": iso(hit.finished_at),
        "place": hit.place.text(),
    }


def place(text: str) -> Place:
    """``--after``'s PLACE: ``ENTRY.N``, as --json writes it."""
    found = Place.read(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a place (ENTRY.N, as --json writes it)")
    return found


def hit_line(hit: PictureHit) -> str:
    when = datetime.fromtimestamp(hit.finished_at).strftime("%Y-%m-%d %H:%M")
    return f"{when}  {hit.job_id}  {hit.path}"


def list_searches(args: argparse.Namespace) -> int:
    with open_ledger(args) as ledger, names_from_user():
        if args.delete is not None:
            delete_search(ledger, args.delete)
            print(f"forgot the search {args.delete!r}")
            return 0
        kept = saved_searches(ledger)
    for entry in kept:
        print(f"{entry.name}\t{entry.query}")
    if not kept:
        print("no saved search (keep one with: batchline search QUERY --save NAME)")
    return 0

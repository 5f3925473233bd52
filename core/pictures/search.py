"""Searching every picture of the ledger (the library, `batchline search`, `GET /v1/pictures`),
and the searches kept by name.

One query language for every door (``search_query``, docs/search.md); the ledger's full-text
index answers it (``core.ledger.picture_index``), newest first.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from core.errors import InputError
from core.ledger.picture_index import PictureHit, Place
from core.pictures.search_query import parse_query

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import Ledger
    from core.ledger.picture_index import PictureQuery
    from core.ledger.saved_searches import SavedSearch

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
MAX_OFFSET = 10**9

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "MAX_OFFSET",
    "PictureHit",
    "Place",
    "delete_search",
    "newer_than",
    "page_after",
    "save_search",
    "saved_search",
    "saved_searches",
    "search",
]


def search(
    ledger: Ledger,
    query: str,
    *,
    requester: str | None = None,
    limit: int = DEFAULT_LIMIT,
    offset: int = 0,
    output_dir: Path | None = None,
) -> list[PictureHit]:
    """The pictures ``query`` finds, newest first (the order their jobs finished in), a job's
    several pictures in their order; ``requester``'s own alone when given (the API's).

    A page is ``limit`` pictures from the ``offset``-th (the API's and the CLI's pages);
    pictures whose file is gone (deleted outside Batchline) are left out of it, so a page may
    hold fewer. Relative paths are read under ``output_dir``.

    Raises:
        InputError: the query cannot be read (the message quotes the part), or the limit or
            offset is out of range.
    """
    if not 0 <= offset <= MAX_OFFSET:
        raise InputError(f"a search's offset is 0 to {MAX_OFFSET}, not {offset}")
    compiled = _compiled(query, limit)
    hits = ledger.picture_index.search(compiled, requester=requester, limit=limit, offset=offset)
    return _there(hits, output_dir)


def page_after(
    ledger: Ledger,
    query: str,
    after: Place | None,
    *,
    requester: str | None = None,
    limit: int = DEFAULT_LIMIT,
    output_dir: Path | None = None,
) -> list[PictureHit]:
    """The ``limit`` pictures ``query`` finds after the place ``after`` (the last picture's of
    the page before; None: the first page), as `search` orders them, fewer only at the end:
    the library's pages as it scrolls, the API's by ``after``. Gone pictures are read past (a
    folder deleted outside Batchline), a page deep down is read as quickly as the first, and
    pictures that finish meanwhile, which come first, bring none of those read into a later
    page again.

    Raises:
        InputError: the query cannot be read, or the limit is out of range.
    """
    compiled = _compiled(query, limit)
    found: list[PictureHit] = []
    while len(found) < limit:
        wanted = limit - len(found)
        index = ledger.picture_index
        hits = index.search(compiled, requester=requester, limit=wanted, after=after)
        found += _there(hits, output_dir)
        if len(hits) < wanted:
            break
        after = hits[-1].place
    return found


def newer_than(
    ledger: Ledger,
    query: str,
    first: Place,
    *,
    limit: int = MAX_LIMIT,
    output_dir: Path | None = None,
) -> list[PictureHit] | None:
    """The pictures ``query`` finds of jobs that finished after the one at ``first`` (the
    newest shown), newest first, to put above it: the library as pictures arrive. None when
    there are more than ``limit`` (read the search again instead).

    Raises:
        InputError: the query cannot be read, or the limit is out of range.
    """
    compiled = _compiled(query, limit)
    hits = ledger.picture_index.search(compiled, limit=limit + 1, newer=first)
    return _there(hits, output_dir) if len(hits) <= limit else None


def _compiled(query: str, limit: int) -> PictureQuery:
    if not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"a search's limit is 1 to {MAX_LIMIT} pictures, not {limit}")
    return parse_query(query)


def _there(hits: list[PictureHit], output_dir: Path | None) -> list[PictureHit]:
    placed = [_placed(hit, output_dir) for hit in hits]
    return [hit for hit in placed if hit.path.is_file()]


def _placed(hit: PictureHit, output_dir: Path | None) -> PictureHit:
    if output_dir is None or hit.path.is_absolute():
        return hit
    return replace(hit, path=output_dir / hit.path)


def save_search(ledger: Ledger, name: str, query: str) -> SavedSearch:
    """Keep ``query`` under ``name`` (replacing that name's query), once it reads.

    Raises:
        InputError: the query cannot be read, or the name breaks a rule of ``checked_name``.
    """
    parse_query(query)
    return ledger.saved_searches.save(name, query.strip())


def saved_searches(ledger: Ledger) -> list[SavedSearch]:
    """Every saved search, by name."""
    return ledger.saved_searches.all()


def saved_search(ledger: Ledger, name: str) -> SavedSearch:
    """The saved search ``name``.

    Raises:
        UnknownRecord: none by that name.
    """
    return ledger.saved_searches.get(name)


def delete_search(ledger: Ledger, name: str) -> None:
    """Forget the saved search ``name``.

    Raises:
        UnknownRecord: none by that name.
    """
    ledger.saved_searches.delete(name)

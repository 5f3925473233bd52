"""Searches the artist keeps by name (schema 12): the library shows them as boards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import UnknownRecord
from core.ledger import schema
from core.names import checked_name

if TYPE_CHECKING:
    from core.ledger.handle import LedgerHandle


@dataclass(frozen=True)
class SavedSearch:
    name: str
    query: str
    created_at: float
    updated_at: float


class SavedSearchStore:
    """Saved searches by unique name (checked by ``core.names.checked_name``); the query is
    stored as written, checked by its caller (``core.pictures.search.save_search``)."""

    def __init__(self, handle: LedgerHandle) -> None:
        self._handle = handle

    def save(self, name: str, query: str) -> SavedSearch:
        """Keep ``query`` under ``name``, replacing the query a search of that name had.

        Raises:
            InputError: the name breaks a rule of ``checked_name``.
        """
        name = checked_name(name.strip(), "a saved search")
        now = self._handle.now()
        with self._handle.tx():
            table = schema.SavedSearch
            table.insert(name=name, query=query, created_at=now, updated_at=now).on_conflict(
                conflict_target=[table.name],
                update={table.query: query, table.updated_at: now},
            ).execute()
            return _record(table.get(table.name == name))

    def all(self) -> list[SavedSearch]:
        """Every saved search, by name."""
        with self._handle.read():
            table = schema.SavedSearch
            return [_record(row) for row in table.select().order_by(table.name)]

    def get(self, name: str) -> SavedSearch:
        """The saved search ``name``.

        Raises:
            UnknownRecord: there is none by that name.
        """
        with self._handle.read():
            row = schema.SavedSearch.get_or_none(schema.SavedSearch.name == name)
        if row is None:
            raise UnknownRecord(f"no saved search {name!r}")
        return _record(row)

    def delete(self, name: str) -> None:
        """Forget the saved search ``name``.

        Raises:
            UnknownRecord: there is none by that name.
        """
        with self._handle.tx():
            table = schema.SavedSearch
            if not table.delete().where(table.name == name).execute():
                raise UnknownRecord(f"no saved search {name!r}")


def _record(row: schema.SavedSearch) -> SavedSearch:
    return SavedSearch(row.name, row.query, row.created_at, row.updated_at)

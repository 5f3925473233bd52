"""What each server can run, as the controller last read it (its `/object_info`): kept in the
ledger so that `batchline servers`, `batchline queue`, the API and the window say where a batch
can run without asking the servers themselves, and a job that no server can run shows why."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.ledger import schema
from core.placement.stored import offer_from_json, offer_to_json

if TYPE_CHECKING:
    from core.ledger.handle import LedgerHandle
    from core.placement.server_offer import ServerOffer


@dataclass(frozen=True, slots=True)
class StoredOffer:
    """One server's offer and when it was read (the ledger's clock)."""

    server: str
    offer: ServerOffer
    read_at: float


class ServerOfferStore:
    """Read and write the servers' offers, one row per server address."""

    def __init__(self, handle: LedgerHandle) -> None:
        self._handle = handle

    def store(self, server: str, offer: ServerOffer) -> None:
        """Keep ``offer`` as ``server``'s, replacing the one read before."""
        with self._handle.tx():
            schema.ServerOffer.insert(
                server=server,
                offer_json=json.dumps(offer_to_json(offer)),
                read_at=self._handle.now(),
            ).on_conflict_replace().execute()

    def all(self) -> dict[str, StoredOffer]:
        """Every server's offer, by address (servers never read are absent)."""
        with self._handle.read():
            rows = list(schema.ServerOffer.select())
        return {row.server: _stored(row) for row in rows}

    def forget(self, server: str) -> None:
        """Drop ``server``'s offer (it was removed from the settings)."""
        with self._handle.tx():
            schema.ServerOffer.delete().where(schema.ServerOffer.server == server).execute()


def _stored(row: schema.ServerOffer) -> StoredOffer:
    try:
        data = json.loads(row.offer_json)
    except ValueError:
        data = None
    return StoredOffer(row.server, offer_from_json(data), row.read_at)

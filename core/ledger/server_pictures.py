"""What each server calls each input picture Batchline uploaded to it: the value its prompts
put in place of the picture (``batchline/<the name the server returned>``; ComfyUI renames an
upload whose name another file holds). Kept in the ledger so that a picture is uploaded once per
server, across batches and restarts of Batchline; whether the server still has it is checked
again once per connection (core/controller/picture_uploads.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.ledger import schema

if TYPE_CHECKING:
    from core.ledger.handle import LedgerHandle


class ServerPictureStore:
    """Read and write the servers' names of the pictures, one row per server and picture."""

    def __init__(self, handle: LedgerHandle) -> None:
        self._handle = handle

    def get(self, server: str, sha256: str) -> str | None:
        """What ``server`` calls the picture ``sha256``; None when it was never uploaded there."""
        with self._handle.read():
            row = schema.ServerPicture.get_or_none(
                (schema.ServerPicture.server == server) & (schema.ServerPicture.sha256 == sha256)
            )
        return None if row is None else str(row.value)

    def put(self, server: str, sha256: str, value: str) -> None:
        """Keep ``value`` as what ``server`` calls the picture ``sha256`` (replacing the last)."""
        with self._handle.tx():
            schema.ServerPicture.insert(
                server=server, sha256=sha256, value=value, uploaded_at=self._handle.now()
            ).on_conflict_replace().execute()

    def forget(self, server: str, sha256: str | None = None) -> None:
        """Drop what ``server`` calls the picture ``sha256`` (every picture when None)."""
        query = schema.ServerPicture.delete().where(schema.ServerPicture.server == server)
        if sha256 is not None:
            query = query.where(schema.ServerPicture.sha256 == sha256)
        with self._handle.tx():
            query.execute()

    def of_server(self, server: str) -> dict[str, str]:
        """Every picture ``server`` has a name for: sha256 -> value."""
        with self._handle.read():
            rows = list(schema.ServerPicture.select().where(schema.ServerPicture.server == server))
        return {str(row.sha256): str(row.value) for row in rows}

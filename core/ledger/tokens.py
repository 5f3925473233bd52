"""The HTTP API's requesters: a name and the sha256 of its bearer token, never the token.

A token is shown once, when it is made; a request carrying it acts as its name, the requester
of the jobs it queues. Tokens are long random strings, so a plain hash is enough to keep the
ledger from holding anything that could be replayed.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import InputError, UnknownRecord
from core.ledger import schema
from core.ledger.owners import default_requester

if TYPE_CHECKING:
    from core.ledger.handle import LedgerHandle

TOKEN_PREFIX = "btl_"
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
# A token's last use is written at most this often (seconds): not a ledger write per request.
LAST_USED_EVERY_S = 60.0


@dataclass(frozen=True, slots=True)
class TokenRecord:
    name: str
    created_at: float
    last_used_at: float | None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def check_token_name(name: str) -> None:
    """Raises InputError unless ``name`` is 1-64 letters, digits, ``.``, ``_``, ``@`` or ``-``
    (starting with a letter or digit): it is shown as the requester everywhere."""
    if not NAME_PATTERN.fullmatch(name):
        raise InputError(
            f"{name!r} cannot name a token: use 1-64 letters, digits, '.', '_', '@' or '-', "
            "starting with a letter or digit"
        )


class TokenStore:
    """Create, list, revoke and look up the API's tokens."""

    def __init__(self, handle: LedgerHandle) -> None:
        self._handle = handle

    def create(self, name: str, *, as_local_user: bool = False) -> str:
        """A new token for the requester ``name``, returned once (only its hash is kept).

        Requesters are one namespace for jobs, so a token named as the artist's own user (the
        requester of the jobs queued here without one) would see, cancel and retry all of
        them: that takes ``as_local_user``, never happens silently.

        Raises:
            InputError: the name is not a valid requester name, has a token already, or is
                the local user's without ``as_local_user``.
        """
        check_token_name(name)
        if name == default_requester() and not as_local_user:
            raise InputError(
                f"{name!r} is your own user name here, the requester of the jobs you queue: a "
                "token of that name would see, cancel and retry every one of them; choose "
                "another name, or pass --as-local-user if that is what you want"
            )
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self._handle.tx():
            if schema.ApiToken.get_or_none(schema.ApiToken.name == name) is not None:
                raise InputError(f"the requester {name!r} has a token already: revoke it first")
            schema.ApiToken.create(
                name=name, token_hash=token_hash(token), created_at=self._handle.now()
            )
        return token

    def all(self) -> list[TokenRecord]:
        with self._handle.read():
            query = schema.ApiToken.select().order_by(schema.ApiToken.name)
            return [TokenRecord(r.name, r.created_at, r.last_used_at) for r in query]

    def revoke(self, name: str) -> None:
        """Forget the token of ``name``: requests carrying it are refused from now on; the jobs
        it queued stay.

        Raises:
            UnknownRecord: no token has that name.
        """
        with self._handle.tx():
            if not schema.ApiToken.delete().where(schema.ApiToken.name == name).execute():
                raise UnknownRecord(f"no token named {name!r}")

    def requester(self, token: str) -> str | None:
        """The name whose token ``token`` is, or None; notes when it was last used."""
        digest = token_hash(token)
        with self._handle.read():
            row = schema.ApiToken.get_or_none(schema.ApiToken.token_hash == digest)
        if row is None:
            return None
        now = self._handle.now()
        if row.last_used_at is None or now - row.last_used_at >= LAST_USED_EVERY_S:
            with self._handle.tx():
                schema.ApiToken.update(last_used_at=now).where(
                    schema.ApiToken.token_hash == digest
                ).execute()
        return str(row.name)

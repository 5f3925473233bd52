"""Who writes a preset: the artist on this machine (the command line, the window) or a
requester of the HTTP API (a token's name), as the ledger records it ("local:NAME",
"api:NAME"). The two never share a namespace: an API token named like the local user is
still an API requester here, so it cannot change the artist's presets."""

from __future__ import annotations

import getpass
from dataclasses import dataclass
from typing import Any

LOCAL = "local"
API = "api"


def default_requester() -> str:
    """The operating-system user name: the artist, and the requester of jobs queued here
    without one."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "artist"


@dataclass(frozen=True, slots=True)
class Actor:
    """One who stores or changes presets: ``via`` is LOCAL (the artist) or API."""

    name: str
    via: str

    @classmethod
    def artist(cls) -> Actor:
        return cls(default_requester(), LOCAL)

    @classmethod
    def requester(cls, name: str) -> Actor:
        return cls(name, API)

    @classmethod
    def from_key(cls, key: str) -> Actor:
        via, _, name = key.partition(":")
        return cls(name, via)

    @property
    def key(self) -> str:
        """How the ledger records it (``Preset.stored_by``, ``Preset.changed_by``)."""
        return f"{self.via}:{self.name}"

    @property
    def local(self) -> bool:
        return self.via == LOCAL

    def json(self) -> dict[str, Any]:
        return {"name": self.name, "via": self.via}

    def __str__(self) -> str:
        return f"{self.name} (local)" if self.local else f"{self.name} (API)"

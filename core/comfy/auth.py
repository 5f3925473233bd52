"""Optional credentials for a remote ComfyUI behind an authenticating proxy (bearer or basic)."""

from __future__ import annotations

import base64
import ssl
from dataclasses import dataclass, field

Verify = bool | str | ssl.SSLContext


@dataclass(frozen=True, slots=True)
class BearerAuth:
    """``Authorization: Bearer <token>``; the token never appears in repr."""

    token: str = field(repr=False)

    def header(self) -> str:
        return f"Bearer {self.token}"


@dataclass(frozen=True, slots=True)
class BasicAuth:
    """``Authorization: Basic <base64(user:password)>``; the password never appears in repr."""

    username: str
    password: str = field(repr=False)

    def header(self) -> str:
        raw = f"{self.username}:{self.password}".encode()
        return "Basic " + base64.b64encode(raw).decode("ascii")


Auth = BearerAuth | BasicAuth


def auth_headers(auth: Auth | None) -> dict[str, str]:
    """The headers that carry ``auth`` (none without it), for both HTTP and the WebSocket."""
    return {} if auth is None else {"Authorization": auth.header()}


def ssl_context(verify: Verify) -> ssl.SSLContext:
    """An SSL context for ``wss://`` that matches httpx's ``verify`` semantics.

    Args:
        verify: True (system CAs), False (no verification: only for a trusted LAN box),
            a CA bundle path, or a ready context.
    """
    if isinstance(verify, ssl.SSLContext):
        return verify
    if isinstance(verify, str):
        return ssl.create_default_context(cafile=verify)
    context = ssl.create_default_context()
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context

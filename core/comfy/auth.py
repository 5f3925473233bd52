"""Optional credentials for a remote ComfyUI behind an authenticating proxy (bearer or basic)."""

from __future__ import annotations

import base64
import logging
import re
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


# An Authorization header's value as logs show it: `Authorization: Bearer x`, a dict's
# `'authorization': 'Bearer x'`, a header tuple's `(b'Authorization', b'Bearer x')`.
_AUTHORIZATION = re.compile(
    r"""(authorization['"]?\s*[:=,]\s*(?:b?['"])?)[^'"\r\n]+""", re.IGNORECASE
)


class RedactAuthorization(logging.Filter):
    """A logging filter that blanks Authorization header values, so a token never reaches a
    log: on a logger it covers the records made there, on a handler every record it writes."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = _AUTHORIZATION.sub(r"\1<redacted>", message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


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

"""Server tokens: in the OS keyring via `keyring`, else from $BATCHLINE_TOKEN; never in the ledger.

Shared by the app (Settings stores it) and the CLI (which reads it for the same server URL).
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

import keyring
from keyring.errors import KeyringError, NoKeyringError

from core.comfy import DEFAULT_TIMEOUT, BearerAuth, ComfyClient

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)
SERVICE = "Batchline"
TOKEN_ENV = "BATCHLINE_TOKEN"


def keyring_available() -> bool:
    """Whether a real keyring backend exists (not the fail or null backends)."""
    backend = keyring.get_keyring()
    priority = getattr(backend, "priority", 0)
    return bool(priority and priority > 0)


def load_token(server: str) -> str | None:
    """The token for ``server``: the keyring's, else $BATCHLINE_TOKEN, else None."""
    if keyring_available():
        try:
            token = keyring.get_password(SERVICE, server)
        except KeyringError as exc:
            log.warning("keyring unavailable: %s", type(exc).__name__)
        else:
            if token:
                return token
    return os.environ.get(TOKEN_ENV) or None


def client_for(
    server: str, *, token: str = "", timeout: httpx.Timeout = DEFAULT_TIMEOUT
) -> ComfyClient:
    """A client of ``server`` sending its bearer token: ``token``, else the stored one."""
    token = token or load_token(server) or ""
    return ComfyClient(server, auth=BearerAuth(token) if token else None, timeout=timeout)


def save_token(server: str, token: str) -> bool:
    """Store (or with an empty token, forget) the token; False when there is no keyring."""
    if not keyring_available():
        return False
    try:
        if token:
            keyring.set_password(SERVICE, server, token)
        else:
            keyring.delete_password(SERVICE, server)
    except NoKeyringError:
        return False
    except KeyringError as exc:
        log.warning("keyring refused the token: %s", type(exc).__name__)
        return False
    return True

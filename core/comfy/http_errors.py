"""Mapping of httpx failures and HTTP status codes onto the core.errors tree."""

from __future__ import annotations

import httpx

from core.errors import (
    ComfyAuthError,
    ComfyConnectionError,
    ComfyError,
    ComfyNotFound,
    ComfyProtocolError,
    ComfyServerError,
    ComfyTimeout,
    ComfyUnreachable,
)

_SNIPPET = 200


def transport_error(exc: httpx.HTTPError, route: str) -> ComfyError:
    """The ComfyError for an httpx exception raised before a full answer arrived.

    Only a failure to connect (or to get a pooled connection) proves that nothing was sent;
    any other failure leaves the request's outcome unknown.
    """
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
        return ComfyUnreachable(f"cannot connect ({type(exc).__name__}: {exc})", route)
    if isinstance(exc, httpx.TimeoutException):
        return ComfyTimeout(f"no answer in time ({type(exc).__name__})", route)
    if isinstance(exc, httpx.TransportError):
        return ComfyConnectionError(f"{type(exc).__name__}: {exc}".rstrip(": "), route)
    return ComfyProtocolError(f"{type(exc).__name__}: {exc}", route)


def status_error(response: httpx.Response, route: str) -> ComfyError | None:
    """The ComfyError for a non-2xx answer, or None for 2xx.

    The body must already be read (it is quoted, shortened, in the message).
    """
    code = response.status_code
    if 200 <= code < 300:
        return None
    text = f"HTTP {code}: {_snippet(response)}"
    if code >= 500 or code == 429:
        return ComfyServerError(text, route, status=code)
    if code == 408:
        return ComfyTimeout(text, route)
    if code in (401, 403):  # said as the WebSocket's refusal is: either may come first
        return ComfyAuthError(f"credentials refused ({text})", route)
    if code == 404:
        return ComfyNotFound(text, route)
    return ComfyProtocolError(text, route)


def _snippet(response: httpx.Response) -> str:
    try:
        text = response.content[:_SNIPPET].decode("utf-8", "replace")
    except httpx.ResponseNotRead:
        return response.reason_phrase
    return " ".join(text.split()) or response.reason_phrase

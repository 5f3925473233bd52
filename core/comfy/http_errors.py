"""Mapping of httpx failures and HTTP status codes onto the core.errors tree, and those errors
in plain words."""

from __future__ import annotations

import errno
import socket

import aiohttp
import httpx

from core.errors import (
    ComfyAnswerTooLarge,
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


def transport_error(exc: httpx.HTTPError | aiohttp.ClientError, route: str) -> ComfyError:
    """The ComfyError for a failure before a full answer arrived: httpx's, or aiohttp's under
    it (httpx-aiohttp).

    Only a failure to connect (or to get a pooled connection) proves that nothing was sent;
    any other failure leaves the request's outcome unknown.
    """
    cause = exc if isinstance(exc, aiohttp.ClientError) else exc.__cause__
    if isinstance(cause, aiohttp.ClientError):
        # httpx-aiohttp's own mapping is too coarse for that: it calls a connection that
        # dropped after the request went out a connect timeout.
        return _aiohttp_error(cause, route)
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
        return ComfyUnreachable(f"cannot connect ({type(exc).__name__}: {exc})", route)
    if isinstance(exc, httpx.TimeoutException):
        return ComfyTimeout(f"no answer in time ({type(exc).__name__})", route)
    if isinstance(exc, httpx.TransportError):
        return ComfyConnectionError(f"{type(exc).__name__}: {exc}".rstrip(": "), route)
    return ComfyProtocolError(f"{type(exc).__name__}: {exc}", route)


def _aiohttp_error(exc: aiohttp.ClientError, route: str) -> ComfyError:
    name = type(exc).__name__
    if isinstance(exc, aiohttp.ClientResponseError):  # an answer that is not HTTP
        return ComfyProtocolError(f"{name}: {' '.join(exc.message.split())}", route)
    detail = " ".join(str(exc).split())  # one line
    if isinstance(exc, aiohttp.ClientConnectorError | aiohttp.ConnectionTimeoutError):
        return ComfyUnreachable(f"cannot connect ({name}: {detail})", route)
    if isinstance(exc, aiohttp.ServerTimeoutError):
        return ComfyTimeout(f"no answer in time ({name})", route)
    if isinstance(exc, aiohttp.ClientConnectionError | aiohttp.ClientPayloadError):
        return ComfyConnectionError(f"{name}: {detail}".rstrip(": "), route)
    return ComfyProtocolError(f"{name}: {detail}", route)


def status_error(response: httpx.Response, body: bytes, route: str) -> ComfyError | None:
    """The ComfyError for a non-2xx answer, or None for 2xx; ``body`` (what was read of it, see
    ``bodies.read_prefix``) is quoted, shortened, in the message."""
    code = response.status_code
    if 200 <= code < 300:
        return None
    text = f"HTTP {code}: {snippet(body) or response.reason_phrase}"
    if code >= 500 or code == 429:
        return ComfyServerError(text, route, status=code)
    if code == 408:
        return ComfyTimeout(text, route)
    if code in (401, 403):  # said as the WebSocket's refusal is: either may come first
        return ComfyAuthError(f"credentials refused ({text})", route)
    if code == 404:
        return ComfyNotFound(text, route)
    return ComfyProtocolError(text, route)


def snippet(body: bytes) -> str:
    """The start of an answer's body on one line, for a message."""
    return " ".join(body[:_SNIPPET].decode("utf-8", "replace").split())


def deadline_error(seconds: float, route: str) -> ComfyTimeout:
    """The error for an answer still incomplete when its whole-request deadline passed (a
    server that trickles its answer never trips a per-read timeout)."""
    return ComfyTimeout(f"no complete answer within {seconds:g} s (the server is stuck)", route)


def plain_reason(exc: BaseException, timeout: float | None = None) -> str:
    """Why a server did not answer as ComfyUI, in an artist's words ("" when there are none
    better than the error's own); ``timeout``: the seconds it was given, to say so."""
    if isinstance(exc, ComfyUnreachable):
        os_error = _os_error(exc)
        if isinstance(os_error, socket.gaierror | aiohttp.ClientConnectorDNSError):
            return "no computer of that name was found"
        if os_error is not None and os_error.errno == errno.ECONNREFUSED:
            return "nothing listens on that port (is ComfyUI started?)"
        return "it cannot be reached"
    if isinstance(exc, ComfyTimeout):
        return f"no answer within {timeout:g} s" if timeout else "no answer in time"
    if isinstance(exc, ComfyAuthError):
        return "it refused the token"
    if isinstance(exc, ComfyNotFound):
        return "a web server answers there, but not ComfyUI"
    if isinstance(exc, ComfyAnswerTooLarge):
        return ""  # its own words say it: "answer exceeds the limit of ..."
    if isinstance(exc, ComfyProtocolError):
        return "it answers, but not as ComfyUI does"
    return ""


def _os_error(exc: BaseException) -> OSError | None:
    """The operating system's error under ``exc``, if any (ComfyUnreachable ← httpx ← aiohttp)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None

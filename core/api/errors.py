"""The API's errors: one JSON shape, ``{"error": CODE, "message": TEXT}``, for every refusal.

Expected failures map to their status by class (bad input 400, another's preset 403, unknown
record 404, a batch larger than a limit 413, the queue full 429 with Retry-After); aiohttp's
own refusals (no such route, wrong method, a body too large) get the same shape. Anything else
is a bug: a 500.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from aiohttp import web

from core.errors import (
    BatchTooLarge,
    InputError,
    LedgerBusyError,
    NotYours,
    QueueBusy,
    UnknownRecord,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

# aiohttp's refusals by status, as error codes.
_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "timeout",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    421: "misdirected",
    429: "busy",
    503: "unavailable",
}
LEDGER_BUSY_RETRY_S = 1


class ApiError(Exception):
    """A refusal with its status and message (and extra headers)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self.status, self.message, self.headers = status, message, headers or {}
        super().__init__(message)


def error_response(
    status: int, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> web.Response:
    body = {"error": _CODES.get(status, "error"), "message": message, **extra}
    return web.json_response(body, status=status, headers=headers)


def busy_response(busy: QueueBusy) -> web.Response:
    """429: the body says why, where the last job would stand and when it would be done (the
    waiting line's figures, `core.controller.line_now`); Retry-After: when there is room."""
    return web.json_response(
        {
            "error": "busy",
            "reason": busy.reason,
            "position": busy.position,
            "estimated_wait_s": busy.estimated_wait_s,
            "message": str(busy),
        },
        status=429,
        headers={"Retry-After": str(busy.retry_after_s)},
    )


@web.middleware
async def json_errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    try:
        return await handler(request)
    except ApiError as exc:
        return error_response(exc.status, exc.message, exc.headers)
    except QueueBusy as exc:
        return busy_response(exc)
    except BatchTooLarge as exc:
        return error_response(413, str(exc))
    except NotYours as exc:
        return error_response(403, str(exc))
    except UnknownRecord as exc:
        return error_response(404, str(exc))
    except InputError as exc:
        return error_response(400, str(exc))
    except UnicodeEncodeError:  # a name or id (path, query) that is not valid Unicode text
        return error_response(400, "the request holds text that is not valid Unicode")
    except LedgerBusyError as exc:
        return error_response(503, str(exc), {"Retry-After": str(LEDGER_BUSY_RETRY_S)})
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        return error_response(exc.status, exc.reason, _kept_headers(exc))


def _kept_headers(exc: web.HTTPException) -> dict[str, str]:
    """The headers of aiohttp's refusal worth keeping (Allow on a 405)."""
    return {name: value for name, value in exc.headers.items() if name in ("Allow",)}

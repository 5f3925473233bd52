"""Reading an answer's body within a size limit: a server cannot make Batchline hold gigabytes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.comfy.shapes import parse_json
from core.errors import ComfyAnswerTooLarge, ComfyProtocolError

if TYPE_CHECKING:
    import httpx

MIB = 1024 * 1024
# ComfyUI's real answers are small but for the node catalogue (a few MB with many custom nodes).
MAX_ANSWER_BYTES = 16 * MIB
MAX_CATALOGUE_BYTES = 64 * MIB
# An error answer is only quoted (shortened): this much of it is read.
ERROR_PREFIX_BYTES = 4096


@dataclass(frozen=True, slots=True)
class Answer:
    """One complete answer: its status, its body (within the route's limit) and its route."""

    status: int
    body: bytes
    route: str

    def json(self) -> Any:
        """The body as JSON.

        Raises:
            ComfyProtocolError: it is not JSON.
        """
        return parse_json(self.body, self.route)


def check_declared_size(
    response: httpx.Response,
    limit: int,
    route: str,
    error: type[ComfyAnswerTooLarge] = ComfyAnswerTooLarge,
) -> None:
    """Refuse early when ``Content-Length`` already says too much (or is not a number)."""
    declared = response.headers.get("content-length")
    if declared is None:
        return
    if not declared.strip().isdigit():
        raise ComfyProtocolError(f"bad Content-Length {declared[:40]!r}", route)
    if int(declared) > limit:
        raise error(f"{error.what} is {declared} bytes, limit {_size(limit)}", route, limit)


def too_large(limit: int, route: str, error: type[ComfyAnswerTooLarge]) -> ComfyAnswerTooLarge:
    """The error for a body that went past ``limit`` while it was read."""
    text = f"{error.what} exceeds the limit of {_size(limit)}, not read further"
    return error(text, route, limit)


async def read_body(response: httpx.Response, limit: int, route: str) -> bytes:
    """The whole body of a streamed answer.

    Raises:
        ComfyAnswerTooLarge: it declares or reaches more than ``limit`` bytes; reading stops
            there (the caller closes the response, which drops the connection).
    """
    check_declared_size(response, limit, route)
    body = bytearray()
    async for chunk in response.aiter_bytes():
        if len(body) + len(chunk) > limit:
            raise too_large(limit, route, ComfyAnswerTooLarge)
        body += chunk
    return bytes(body)


async def read_prefix(response: httpx.Response, size: int = ERROR_PREFIX_BYTES) -> bytes:
    """At most the first ``size`` bytes of a streamed answer (the rest is never read)."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk[: size - len(body)]
        if len(body) >= size:
            break
    return bytes(body)


def _size(limit: int) -> str:
    if limit >= MIB and limit % MIB == 0:
        return f"{limit // MIB} MiB"
    return f"{limit} bytes"

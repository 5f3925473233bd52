"""Streaming an output file beside a caller-given path: size-limited, atomic, never over a file."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, BinaryIO

from core.comfy.bodies import MIB, too_large
from core.errors import ComfyOutputTooLarge
from core.files import open_part, place

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import httpx

DEFAULT_MAX_BYTES = 256 * MIB


async def stream_to_file(
    response: httpx.Response,
    dest: Path,
    max_bytes: int,
    route: str,
    finish: Callable[[Path], None] | None = None,
) -> Path:
    """Write the body beside ``dest`` through a temp file, never over an existing file.

    Args:
        response: a streamed 200 answer whose body is not read yet.
        dest: the wanted file; its folder must exist.
        max_bytes: more than this many bytes raises ComfyOutputTooLarge and keeps nothing.
        route: names the route in errors.
        finish: given the complete temp file before it takes its name (to add to it); what it
            does must depend on the file's bytes alone, as an identical file already there is
            reused.

    Returns:
        The file actually written (see `core.files.place`).
    """
    part, handle = open_part(dest)
    try:
        with handle:
            await _copy(response, handle, max_bytes, route)
        if finish is not None:  # on the loop, as the chunks were written: a few ms for MBs
            finish(part)
        path = place(part, dest)
    finally:
        with contextlib.suppress(OSError):
            part.unlink()
    return path


async def _copy(response: httpx.Response, handle: BinaryIO, max_bytes: int, route: str) -> None:
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > max_bytes:
            raise too_large(max_bytes, route, ComfyOutputTooLarge)
        handle.write(chunk)

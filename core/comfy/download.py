"""Streaming an output file to a caller-given path: size-limited, atomic, never elsewhere."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from core.errors import ComfyOutputTooLarge, ComfyProtocolError

if TYPE_CHECKING:
    import httpx

DEFAULT_MAX_BYTES = 256 * 1024 * 1024


def check_declared_size(response: httpx.Response, max_bytes: int, route: str) -> None:
    """Refuse early when ``Content-Length`` already says too much (or is not a number)."""
    declared = response.headers.get("content-length")
    if declared is None:
        return
    if not declared.strip().isdigit():
        raise ComfyProtocolError(f"bad Content-Length {declared[:40]!r}", route)
    if int(declared) > max_bytes:
        raise ComfyOutputTooLarge(
            f"output is {declared} bytes, limit {max_bytes}", route, max_bytes
        )


async def stream_to_file(response: httpx.Response, dest: Path, max_bytes: int, route: str) -> int:
    """Write the body to ``dest`` through a sibling temp file; returns the byte count.

    Args:
        response: a streamed 200 answer whose body is not read yet.
        dest: the exact file to create or replace; its folder must exist.
        max_bytes: more than this many bytes raises ComfyOutputTooLarge and keeps nothing.
        route: names the route in errors.
    """
    part, handle = _open_part(dest)
    try:
        with handle:
            total = await _copy(response, handle, max_bytes, route)
        os.replace(part, dest)
    except BaseException:
        with contextlib.suppress(OSError):
            part.unlink()
        raise
    return total


def _open_part(dest: Path) -> tuple[Path, BinaryIO]:
    """A new private temp file next to ``dest`` (same file system, so the rename is atomic)."""
    if dest.is_dir():
        raise IsADirectoryError(f"download destination is a folder: {dest}")
    fd, name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    return Path(name), os.fdopen(fd, "wb")


async def _copy(response: httpx.Response, handle: BinaryIO, max_bytes: int, route: str) -> int:
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > max_bytes:
            raise ComfyOutputTooLarge(
                f"output exceeds the limit of {max_bytes} bytes", route, max_bytes
            )
        handle.write(chunk)
    return total

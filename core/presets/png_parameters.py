"""A PNG with the A1111 ``parameters`` text of the workflow it carries: what Civitai and image
browsers read, added beside ComfyUI's own ``prompt`` and ``workflow`` chunks, its pixels as
they are. Made from the PNG's bytes alone, so the same picture always gets the same bytes (a
picture downloaded again after a crash is found identical to the file already written)."""

from __future__ import annotations

import json
import struct
from typing import TYPE_CHECKING, Any

from core.errors import BatchlineError, InputError
from core.presets.a1111_fields import infotext_of
from core.presets.infotext import format_infotext
from core.presets.png import read_text_chunks
from core.presets.png_text import SIGNATURE, with_texts

if TYPE_CHECKING:
    from pathlib import Path

PARAMETERS = "parameters"
MAX_REWRITE_BYTES = 256 * 1024 * 1024  # a bigger picture is kept as ComfyUI wrote it


def with_parameters(data: bytes, text: str | None) -> bytes:
    """The PNG with its parameters text (a text it has already stays); a damaged one, or no
    text, as it is."""
    if text is None:
        return data
    try:
        return with_texts(data, {PARAMETERS: text})
    except InputError:
        return data


def own_parameters(data: bytes) -> bytes:
    """The PNG `data` with the parameters text of the workflow in its own ``prompt`` chunk;
    anything else (not a PNG, no workflow, no sampler in it, a text already there) as it is."""
    if not data.startswith(SIGNATURE):
        return data
    workflow = carried_workflow(data)
    if workflow is None:
        return data
    info = infotext_of(workflow, png_size(data))
    return with_parameters(data, format_infotext(info) if info is not None else None)


def add_own_parameters(path: Path) -> None:
    """Give the PNG file at `path` (a download not yet placed) its own parameters text."""
    if path.stat().st_size > MAX_REWRITE_BYTES:
        return
    data = path.read_bytes()
    added = own_parameters(data)
    if added is not data:
        path.write_bytes(added)


def carried_workflow(data: bytes) -> dict[str, Any] | None:
    """The API workflow a PNG carries in ComfyUI's ``prompt`` chunk (what was sent)."""
    try:
        prompt = json.loads(read_text_chunks(data).get("prompt", "null"))
    except (BatchlineError, ValueError):
        return None
    return prompt if isinstance(prompt, dict) else None


def png_size(data: bytes) -> tuple[int, int] | None:
    """A PNG's width and height from its header."""
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)

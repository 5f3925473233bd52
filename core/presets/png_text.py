"""Text chunks added to a PNG as it is, byte for byte: its pixels never decoded or encoded again.

Each new chunk goes right before the first image data (``IDAT``), after the ones ComfyUI wrote
(``prompt``, ``workflow``), where Pillow and A1111 put theirs and where readers that stop at
the image data find it. Like Pillow's ``PngInfo.add_text``, a text Latin-1 can hold is a
``tEXt`` chunk, any other an uncompressed ``iTXt`` one (UTF-8).
"""

from __future__ import annotations

import struct
import zlib
from typing import TYPE_CHECKING

from core.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_TEXT_TYPES = (b"tEXt", b"iTXt", b"zTXt")


def with_texts(data: bytes, texts: Mapping[str, str]) -> bytes:
    """The PNG `data` with a text chunk per key of `texts` it does not hold yet (a key it
    already has is left as it is); the same bytes when none is new.

    Raises:
        InputError: `data` is not a whole PNG.
    """
    chunks = list(_chunks(data))
    have = {_keyword(body) for kind, body, _ in chunks if kind in _TEXT_TYPES}
    new = b"".join(_text_chunk(k, v) for k, v in texts.items() if k not in have)
    if not new:
        return data
    first_idat = next((start for kind, _, start in chunks if kind == b"IDAT"), None)
    if first_idat is None:
        raise InputError("the PNG holds no image data")
    return data[:first_idat] + new + data[first_idat:]


def image_data(data: bytes) -> bytes:
    """The PNG's header and image data chunks joined: what says its pixels, unchanged by text."""
    return b"".join(
        data[start : start + 12 + len(body)]
        for kind, body, start in _chunks(data)
        if kind in (b"IHDR", b"PLTE", b"IDAT", b"tRNS")
    )


def _chunks(data: bytes) -> Iterator[tuple[bytes, bytes, int]]:
    """Each chunk's type, body and offset, up to ``IEND``."""
    if not data.startswith(SIGNATURE):
        raise InputError("not a PNG")
    offset = len(SIGNATURE)
    while offset + 12 <= len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        end = offset + 12 + length
        if end > len(data):
            break
        yield kind, data[offset + 8 : offset + 8 + length], offset
        if kind == b"IEND":
            return
        offset = end
    raise InputError("the PNG is truncated")


def _keyword(body: bytes) -> str:
    return body.partition(b"\0")[0].decode("latin-1")


def _text_chunk(key: str, text: str) -> bytes:
    keyword = key.encode("latin-1")
    try:
        kind, body = b"tEXt", keyword + b"\0" + text.encode("latin-1")
    except UnicodeEncodeError:
        kind, body = b"iTXt", keyword + b"\0\0\0\0\0" + text.encode("utf-8")
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

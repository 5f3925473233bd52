"""Reading the workflow text chunks ComfyUI writes into its PNG outputs."""

from __future__ import annotations

import io
import warnings
from typing import TYPE_CHECKING, Any

from PIL import Image, PngImagePlugin

from core.errors import PresetError

if TYPE_CHECKING:
    from collections.abc import Mapping

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_TEXT_CHUNK = 32 * 1024 * 1024


def is_png(data: bytes) -> bool:
    return data.startswith(PNG_SIGNATURE)


def read_text_chunks(data: bytes) -> dict[str, str]:
    """The text chunks (`prompt`, `workflow`, ...) of a PNG, checked for truncation first."""
    # Pillow is a parser of untrusted bytes and raises many exception types on damaged files
    # (OSError, SyntaxError, ValueError, struct.error, zlib.error, ...): any of them means the
    # file cannot be read, so they are all turned into a PresetError here.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return _read(data)
    except PresetError:
        raise
    except Exception as exc:
        raise PresetError(f"the PNG is damaged or truncated ({_describe(exc)})") from None


def _read(data: bytes) -> dict[str, str]:
    with Image.open(io.BytesIO(data), formats=["PNG"]) as image:
        image.verify()
    with Image.open(io.BytesIO(data), formats=["PNG"]) as image:
        texts = _strings(image.info)
        if "prompt" not in texts and "workflow" not in texts:
            image.load()  # text chunks written after the pixel data appear only now
            texts = _strings(getattr(image, "text", {}))
    return texts


def _strings(info: Mapping[Any, Any]) -> dict[str, str]:
    return {str(k): v for k, v in info.items() if isinstance(v, str)}


def _describe(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:120]


# ComfyUI's chunks are plain tEXt; other tools may write compressed iTXt/zTXt, for which
# Pillow's default 1 MB limit is too small for large workflows (python-pillow/Pillow#8363).
PngImagePlugin.MAX_TEXT_CHUNK = max(PngImagePlugin.MAX_TEXT_CHUNK, MAX_TEXT_CHUNK)

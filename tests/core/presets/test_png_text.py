"""Tests for core.presets.png_text: text chunks added to a PNG without touching its pixels."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from core.errors import InputError
from core.presets.png_text import image_data, with_texts

COMFY_PNG = Path(__file__).parents[2] / "data" / "comfyui-output-with-workflow.png"


def chunk_types(data: bytes) -> list[bytes]:
    types, offset = [], 8
    while offset < len(data):
        length = int.from_bytes(data[offset : offset + 4], "big")
        types.append(data[offset + 4 : offset + 8])
        offset += 12 + length
    return types


def test_a_text_is_added_before_the_pixels_and_comfyuis_chunks_are_kept() -> None:
    data = COMFY_PNG.read_bytes()
    added = with_texts(data, {"parameters": "a fox\nSteps: 20, Sampler: Euler, Seed: 1"})
    with Image.open(io.BytesIO(added)) as image, Image.open(COMFY_PNG) as original:
        assert image.info["parameters"] == "a fox\nSteps: 20, Sampler: Euler, Seed: 1"
        assert image.info["prompt"] == original.info["prompt"]
        assert image.info["workflow"] == original.info["workflow"]
        assert image.tobytes() == original.tobytes()
    assert image_data(added) == image_data(data), "the image data chunks are the same bytes"
    types = chunk_types(added)
    assert types.index(b"tEXt") < types.index(b"IDAT")
    assert types[-1] == b"IEND"


def test_a_text_latin1_cannot_hold_is_an_itxt_chunk() -> None:
    data = COMFY_PNG.read_bytes()
    added = with_texts(data, {"parameters": "狐 in the snow 🦊"})
    assert b"iTXtparameters" in added
    with Image.open(io.BytesIO(added)) as image:
        assert image.info["parameters"] == "狐 in the snow 🦊"


def test_a_key_the_picture_has_is_left_as_it_is() -> None:
    data = COMFY_PNG.read_bytes()
    once = with_texts(data, {"parameters": "first"})
    assert with_texts(once, {"parameters": "second", "prompt": "{}"}) == once


def test_not_a_png_or_a_cut_one_is_refused() -> None:
    with pytest.raises(InputError, match="not a PNG"):
        with_texts(b"GIF89a", {"parameters": "x"})
    with pytest.raises(InputError, match="truncated"):
        with_texts(COMFY_PNG.read_bytes()[:-20], {"parameters": "x"})
    header_only = COMFY_PNG.read_bytes()[:33] + b"\x00\x00\x00\x00IEND\xaeB`\x82"
    with pytest.raises(InputError, match="no image data"):
        with_texts(header_only, {"parameters": "x"})

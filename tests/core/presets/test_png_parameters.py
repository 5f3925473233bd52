"""A PNG given the parameters text of the workflow it carries: the same bytes every time, and
anything it cannot read left as it is."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from PIL import Image
from PIL.PngImagePlugin import PngInfo

from core.presets.png import read_text_chunks
from core.presets.png_parameters import add_own_parameters, own_parameters
from tests.conftest import DATA

if TYPE_CHECKING:
    from pathlib import Path


def _png(prompt: dict | None) -> bytes:
    info = PngInfo()
    if prompt is not None:
        info.add_text("prompt", json.dumps(prompt))
    out = io.BytesIO()
    Image.new("RGB", (64, 32), (20, 90, 200)).save(out, "PNG", pnginfo=info)
    return out.getvalue()


def _sampler() -> dict:
    return json.loads((DATA / "presets" / "api_sdxl_refiner.json").read_text("utf-8"))


def test_the_text_is_made_from_the_workflow_it_carries_and_once() -> None:
    data = _png(_sampler())
    added = own_parameters(data)
    text = read_text_chunks(added)["parameters"]
    assert "Steps: " in text
    assert "Size: 1024x1024" in text  # what was asked of the sampler
    assert own_parameters(added) == added, "a text already there stays: the same bytes"
    assert own_parameters(data) == added, "the same picture always gets the same bytes"


def test_what_it_cannot_read_stays_as_it_is(tmp_path: Path) -> None:
    plain = _png(None)
    assert own_parameters(plain) is plain
    assert own_parameters(b"GIF89a...") == b"GIF89a..."
    no_sampler = _png({"1": {"class_type": "EmptyImage", "inputs": {"width": 8}}})
    assert own_parameters(no_sampler) is no_sampler
    path = tmp_path / "p.png"
    path.write_bytes(plain)
    add_own_parameters(path)
    assert path.read_bytes() == plain


def test_a_file_is_given_its_text(tmp_path: Path) -> None:
    path = tmp_path / "p.png"
    path.write_bytes(_png(_sampler()))
    add_own_parameters(path)
    assert "parameters" in read_text_chunks(path.read_bytes())

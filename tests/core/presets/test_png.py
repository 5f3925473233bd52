"""Tests for core.presets.png: the workflow text chunks of a ComfyUI PNG, read or refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import PresetError
from core.presets import PresetFormat, load_preset

DATA = Path(__file__).parents[2] / "data"


PNG = DATA / "comfyui-output-with-workflow.png"


def test_png_prompt_and_workflow_chunks() -> None:
    preset = load_preset(PNG)
    assert preset.format is PresetFormat.png
    assert {n["class_type"] for n in preset.api_workflow.values()} == {"EmptyImage", "SaveImage"}
    assert preset.editor_workflow is not None
    assert "nodes" in preset.editor_workflow


def test_png_without_workflow(tmp_path: Path) -> None:
    from PIL import Image

    path = tmp_path / "plain.png"
    Image.new("RGB", (4, 4)).save(path)
    with pytest.raises(PresetError, match=r"plain.png: the PNG carries no ComfyUI workflow"):
        load_preset(path)


def _png_with_text(path: Path, **texts: str) -> Path:
    from PIL import Image, PngImagePlugin

    info = PngImagePlugin.PngInfo()
    for key, value in texts.items():
        info.add_text(key, value)
    Image.new("RGB", (4, 4)).save(path, pnginfo=info)
    return path


def test_png_with_broken_prompt(tmp_path: Path) -> None:
    path = _png_with_text(tmp_path / "broken.png", prompt="{broken")
    with pytest.raises(PresetError, match=r"broken.png: the PNG's prompt chunk is not valid JSON"):
        load_preset(path)


def test_png_with_non_api_prompt(tmp_path: Path) -> None:
    path = _png_with_text(tmp_path / "odd.png", prompt="[1]", workflow="{bad")
    with pytest.raises(PresetError, match=r"odd.png: the PNG's prompt chunk is not an API-format"):
        load_preset(path)

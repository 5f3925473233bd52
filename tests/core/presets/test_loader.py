"""Tests for core.presets.loader: a preset from API JSON, a PNG or an editor graph, or refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.catalogue import Catalogue
from core.errors import PresetError
from core.presets import PresetFormat, load_preset, workflow_hash
from core.presets.loader import MAX_FILE_BYTES

DATA = Path(__file__).parents[2] / "data"


PNG = DATA / "comfyui-output-with-workflow.png"


PRESETS = DATA / "presets"


def test_api_json() -> None:
    preset = load_preset(PRESETS / "api_sdxl_refiner.json")
    assert preset.format is PresetFormat.api
    assert preset.editor_workflow is None
    assert preset.content_hash == workflow_hash(preset.api_workflow)
    assert [str(s.ref) for s in preset.seed_inputs] == ["10.noise_seed", "11.noise_seed"]
    assert preset.notices == ()


def test_png_without_prompt_converts_its_workflow(tmp_path: Path) -> None:
    from PIL import Image, PngImagePlugin

    workflow = load_preset(PNG).editor_workflow
    info = PngImagePlugin.PngInfo()
    info.add_text("workflow", json.dumps(workflow))
    path = tmp_path / "only_workflow.png"
    Image.new("RGB", (8, 8)).save(path, pnginfo=info)
    preset = load_preset(path)
    assert preset.format is PresetFormat.png
    assert "KSampler" in {n["class_type"] for n in preset.api_workflow.values()}
    assert any("no prompt chunk" in n for n in preset.notices)
    assert any("0.3.64" in n for n in preset.notices)


def test_editor_json_with_and_without_catalogue() -> None:
    preset = load_preset(PRESETS / "editor_sdxl_refiner.json")
    assert preset.format is PresetFormat.editor
    assert any("bundled ComfyUI 0.3.64" in n for n in preset.notices)
    served = load_preset(PRESETS / "editor_sdxl_refiner.json", Catalogue.bundled())
    assert served.notices == ()
    assert served.content_hash == preset.content_hash


def test_same_workflow_same_hash_across_formats() -> None:
    # The refiner pair's editor workflow converts to exactly its API prompt (golden pair).
    api = load_preset(PRESETS / "api_sdxl_refiner.json")
    editor = load_preset(PRESETS / "editor_sdxl_refiner.json")
    strip = {
        k: {"class_type": v["class_type"], "inputs": v["inputs"]}
        for k, v in api.api_workflow.items()
    }
    assert {
        k: {"class_type": v["class_type"], "inputs": v["inputs"]}
        for k, v in editor.api_workflow.items()
    } == strip


def test_explicit_seed_inputs_replace_detected() -> None:
    preset = load_preset(PRESETS / "api_sdxl_refiner.json", seed_inputs=["10.noise_seed"])
    assert [str(s.ref) for s in preset.seed_inputs] == ["10.noise_seed"]


def test_explicit_seed_input_must_exist() -> None:
    with pytest.raises(PresetError, match=r"api_sdxl_refiner\.json: seed input 99\.seed"):
        load_preset(PRESETS / "api_sdxl_refiner.json", seed_inputs=["99.seed"])


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty"),
        ("{not json", "not valid JSON"),
        (b"\xff\xfe\x00garbage", "neither JSON nor a PNG"),
        ("[1, 2, 3]", "neither an API-format nor an editor-format"),
        ('{"a": 1}', "neither an API-format nor an editor-format"),
        ('{"nodes": [], "links": []}', "no nodes to run"),
        ("[" * 100_000 + "]" * 100_000, "JSON"),
        ('{"1": {"class_type": "KSampler", "inputs": {"model": ["9", 0]}}}', "input 'model'"),
        ('{"1": {"class_type": ""}}', "node 1 has no class_type"),
        ('{"1": {"class_type": "X", "inputs": []}}', "inputs is not an object"),
    ],
)
def test_bad_json_files(tmp_path: Path, content: str | bytes, message: str) -> None:
    path = _write(tmp_path, "bad.json", content)
    with pytest.raises(PresetError, match=r"bad.json: ") as info:
        load_preset(path)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PresetError, match=r"nope.json: cannot read"):
        load_preset(tmp_path / "nope.json")


def test_huge_file(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(PresetError, match=r"huge.json: the file is larger than 50 MB"):
        load_preset(path)


def test_truncated_png(tmp_path: Path) -> None:
    data = PNG.read_bytes()
    path = _write(tmp_path, "cut.png", data[: len(data) // 2])
    with pytest.raises(PresetError, match=r"cut.png: the PNG is damaged or truncated"):
        load_preset(path)


def test_png_signature_with_garbage(tmp_path: Path) -> None:
    path = _write(tmp_path, "fake.png", b"\x89PNG\r\n\x1a\n" + b"garbage" * 10)
    with pytest.raises(PresetError, match=r"fake.png: the PNG is damaged or truncated"):
        load_preset(path)


def test_editor_dangling_link(tmp_path: Path) -> None:
    workflow = json.loads((PRESETS / "editor_features.json").read_text())
    workflow["links"] = [link for link in workflow["links"] if link[0] != 10]
    path = _write(tmp_path, "dangling.json", json.dumps(workflow))
    with pytest.raises(PresetError, match=r"dangling.json: node 8 \(VAEDecode\), input 'samples'"):
        load_preset(path)

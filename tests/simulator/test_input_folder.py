"""The simulator's input folder as LoadImage sees it (simulator/input_folder.py): its choices in
/object_info, validation of a named file ("Invalid image file", as the recording), HEAD and GET
/view of type input, emptying it (/_sim/wipe_input) and what a restart keeps."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from PIL import Image

from simulator import Simulator
from simulator.input_folder import choices, digest, resolve, wipe, with_input_choices
from simulator.nodes import simulated_object_info
from tests.simulator.sim_helpers import get, post
from tests.simulator.sim_shapes import exchange_diff

# Recorded apart from the 31 exchanges test_contract.py replays (not played by record_comfyui.py).
RECORDINGS = Path(__file__).resolve().parents[1] / "data" / "recordings"
UPLOAD_RECORDINGS = RECORDINGS / "uploads"
MakeSimulator = Callable[..., Awaitable[Simulator]]


def recording(name: str, folder: Path = RECORDINGS) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / f"{name}.json").read_text())
    return data


def save_png(path: Path, color: tuple[int, int, int] = (9, 9, 9)) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(buffer, "PNG")
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def load_and_save(image: str) -> dict[str, Any]:
    return {
        "1": {"class_type": "LoadImage", "inputs": {"image": image}},
        "2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "x"}},
    }


def test_choices_are_the_top_level_files_sorted_pictures_only_for_load_image(
    tmp_path: Path,
) -> None:
    for name in ("b.png", "a.JPG", "notes.txt", "c.webp"):
        (tmp_path / name).write_bytes(b"x")
    save_png(tmp_path / "batchline" / "deep.png")
    assert choices(tmp_path, images_only=True) == ["a.JPG", "b.png", "c.webp"]
    assert choices(tmp_path, images_only=False) == ["a.JPG", "b.png", "c.webp", "notes.txt"]
    assert choices(tmp_path / "gone", images_only=True) == []


def test_the_served_catalogue_lists_the_folder_and_the_shared_one_is_untouched(
    tmp_path: Path,
) -> None:
    (tmp_path / "z.png").write_bytes(b"x")
    (tmp_path / "m.txt").write_bytes(b"x")
    shared = simulated_object_info()
    before = json.dumps(shared["LoadImage"])
    served = with_input_choices(shared, tmp_path)
    assert served["LoadImage"]["input"]["required"]["image"] == [["z.png"], {"image_upload": True}]
    assert served["LoadImageMask"]["input"]["required"]["image"][0] == ["m.txt", "z.png"]
    assert json.dumps(shared["LoadImage"]) == before
    assert served["KSampler"] is shared["KSampler"], "only the loaders are copied"


def test_resolve_takes_subfolders_and_the_input_annotation_but_never_escapes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "input"
    save_png(folder / "batchline" / "a.png")
    save_png(tmp_path / "outside.png")
    assert resolve(folder, "batchline/a.png") == folder / "batchline" / "a.png"
    assert resolve(folder, "batchline/a.png [input]") == folder / "batchline" / "a.png"
    for value in ("../outside.png", str(tmp_path / "outside.png"), "batchline", "", None, 3):
        assert resolve(folder, value) is None, value


def test_digest_is_the_files_sha256_and_wipe_empties_the_folder(tmp_path: Path) -> None:
    data = save_png(tmp_path / "batchline" / "a.png")
    (tmp_path / "top.png").write_bytes(b"x")
    assert digest(tmp_path, "batchline/a.png") == hashlib.sha256(data).hexdigest()
    assert digest(tmp_path, "missing.png") is None
    assert wipe(tmp_path) == 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.asyncio
async def test_a_new_servers_input_folder_holds_comfyuis_example(simulator: Simulator) -> None:
    """As a real installation's: the bundled catalogue's LoadImage default validates and runs."""
    with Image.open(simulator.input_dir / "example.png") as example:
        assert example.format == "PNG"
    async with aiohttp.ClientSession() as session:
        status, answer = await post(
            session, simulator.url + "/prompt", {"prompt": load_and_save("example.png")}
        )
    assert status == 200, answer


@pytest.mark.asyncio
async def test_object_info_lists_what_is_in_the_input_folder_now(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        _, before = await get(session, simulator.url + "/object_info/LoadImage")
        save_png(simulator.input_dir / "fresh.png")
        save_png(simulator.input_dir / "batchline" / "hidden.png")
        _, after = await get(session, simulator.url + "/object_info/LoadImage")
        _, everything = await get(session, simulator.url + "/object_info")
    assert before["LoadImage"]["input"]["required"]["image"][0] == ["example.png"]
    assert after["LoadImage"]["input"]["required"]["image"] == [
        ["example.png", "fresh.png"],
        {"image_upload": True},
    ]
    assert everything["LoadImageMask"]["input"]["required"]["image"][0] == [
        "example.png",
        "fresh.png",
    ]


@pytest.mark.asyncio
async def test_the_loaders_shape_is_the_recorded_one(simulator: Simulator) -> None:
    recorded = recording("object_info_models", UPLOAD_RECORDINGS)["response"]["body"]
    async with aiohttp.ClientSession() as session:
        for name in ("LoadImage", "LoadImageMask"):
            status, body = await get(session, f"{simulator.url}/object_info/{name}")
            assert status == 200
            ours, theirs = body[name]["input"], recorded[name]["input"]
            assert ours["required"]["image"][1] == theirs["required"]["image"][1]
            assert ours.keys() == theirs.keys()


@pytest.mark.asyncio
async def test_a_missing_file_fails_validation_as_the_recording(simulator: Simulator) -> None:
    """Whatever the choices list: the file must be there (in a subfolder too)."""
    recorded = recording("prompt_400_missing_file")
    async with aiohttp.ClientSession() as session:
        status, answer = await post(session, simulator.url + "/prompt", recorded["request"]["body"])
        assert exchange_diff(recorded, status, answer) == []
        assert answer["node_errors"] == recorded["response"]["node_errors"]
        mask = load_and_save("batchline/none.png")
        mask["1"] = {"class_type": "LoadImageMask", "inputs": {"image": "x.png", "channel": "red"}}
        mask["3"] = {"class_type": "MaskToImage", "inputs": {"mask": ["1", 0]}}
        mask["2"]["inputs"]["images"] = ["3", 0]
        status, answer = await post(session, simulator.url + "/prompt", {"prompt": mask})
        assert status == 400
        assert answer["node_errors"]["1"]["errors"][0]["details"] == (
            "image - Invalid image file: x.png"
        )
        save_png(simulator.input_dir / "batchline" / "there.png")
        status, answer = await post(
            session, simulator.url + "/prompt", {"prompt": load_and_save("batchline/there.png")}
        )
        assert status == 200, answer


@pytest.mark.asyncio
async def test_head_and_get_view_serve_input_files(simulator: Simulator) -> None:
    data = save_png(simulator.input_dir / "batchline" / "a.png")
    url = simulator.url + "/view"
    query = {"filename": "a.png", "type": "input", "subfolder": "batchline"}
    async with aiohttp.ClientSession() as session:
        async with session.head(url, params=query) as response:
            assert response.status == 200
            assert await response.read() == b""
        async with session.get(url, params=query) as response:
            assert await response.read() == data
        async with session.head(url, params={**query, "filename": "b.png"}) as response:
            assert response.status == 404
        async with session.head(url, params={**query, "subfolder": "../.."}) as response:
            assert response.status == 403


@pytest.mark.asyncio
async def test_a_restart_keeps_the_input_folder_unless_told_not_to(
    make_simulator: MakeSimulator,
) -> None:
    kept = await make_simulator()
    fresh = await make_simulator(keep_input=False)
    for simulator in (kept, fresh):
        save_png(simulator.input_dir / "batchline" / "a.png")
        await simulator.restart()
    assert sorted(p.name for p in kept.input_dir.iterdir()) == ["batchline", "example.png"]
    assert (kept.input_dir / "batchline" / "a.png").is_file()
    assert fresh.input_dir.is_dir()
    assert list(fresh.input_dir.iterdir()) == []


@pytest.mark.asyncio
async def test_sim_wipe_input_empties_it_as_a_new_servers(simulator: Simulator) -> None:
    save_png(simulator.input_dir / "batchline" / "a.png")
    save_png(simulator.input_dir / "b.png")
    async with aiohttp.ClientSession() as session:
        status, answer = await post(session, simulator.url + "/_sim/wipe_input", {})
        assert (status, answer) == (200, {"removed": 3})  # example.png too
        status, answer = await post(
            session, simulator.url + "/prompt", {"prompt": load_and_save("b.png")}
        )
    assert status == 400
    assert list(simulator.input_dir.iterdir()) == []

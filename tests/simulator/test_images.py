"""Output files: PNG text chunks, seed-derived pictures, subfolders, temp previews, /view rules."""

from __future__ import annotations

import asyncio
import io
import json
import os

import aiohttp
import pytest
from PIL import Image, ImageChops

from simulator import Simulator
from tests.simulator.sim_helpers import checkpoint, quick, submit, wait_history

WORKFLOW = {"last_node_id": 2, "nodes": [{"id": 1, "type": "EmptyImage"}], "links": []}


@pytest.mark.asyncio
async def test_saved_png_carries_prompt_and_workflow_chunks(simulator: Simulator) -> None:
    prompt = quick(0x336699, "smoke/demo")
    extra = {"extra_pnginfo": {"workflow": WORKFLOW}}
    async with aiohttp.ClientSession() as session:
        entry = await wait_history(
            session, simulator, await submit(session, simulator, prompt, extra_data=extra)
        )
    image = entry["outputs"]["2"]["images"][0]
    assert image == {"filename": "demo_00001_.png", "subfolder": "smoke", "type": "output"}
    with Image.open(simulator.output_dir / "smoke" / "demo_00001_.png") as png:
        assert json.loads(png.text["prompt"]) == prompt
        assert json.loads(png.text["workflow"]) == WORKFLOW
        assert png.getpixel((40, 40)) == (0x33, 0x66, 0x99)


@pytest.mark.asyncio
async def test_different_seeds_give_visibly_different_pictures(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        for seed in (1, 2):
            await wait_history(
                session, simulator, await submit(session, simulator, checkpoint(seed))
            )
    names = sorted(simulator.output_dir.glob("ckpt_*.png"))
    assert [p.name for p in names] == ["ckpt_00001_.png", "ckpt_00002_.png"]
    with Image.open(names[0]) as a, Image.open(names[1]) as b:
        assert a.size == b.size == (128, 96)
        assert ImageChops.difference(a.convert("RGB"), b.convert("RGB")).getbbox() is not None


@pytest.mark.asyncio
async def test_the_counter_follows_files_others_add_or_delete(simulator: Simulator) -> None:
    """As ComfyUI: the next file is numbered after the highest in the folder, whoever wrote it."""

    async def saved(seed: int) -> str:
        entry = await wait_history(
            session, simulator, await submit(session, simulator, checkpoint(seed))
        )
        return str(entry["outputs"]["9"]["images"][0]["filename"])

    async with aiohttp.ClientSession() as session:
        assert [await saved(1), await saved(2)] == ["ckpt_00001_.png", "ckpt_00002_.png"]
        await asyncio.sleep(0.05)  # past the file system's clock tick: the folder looks changed
        (simulator.output_dir / "ckpt_00007_.png").write_bytes(b"another program's")
        assert await saved(3) == "ckpt_00008_.png"
        await asyncio.sleep(0.05)
        (simulator.output_dir / "ckpt_00008_.png").unlink()
        (simulator.output_dir / "ckpt_00007_.png").unlink()
        assert await saved(4) == "ckpt_00003_.png"
        before = simulator.output_dir.stat()
        (simulator.output_dir / "ckpt_00004_.png").write_bytes(b"written at once")
        # Within one tick of the file system's clock the folder's time does not change.
        os.utime(simulator.output_dir, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert await saved(5) == "ckpt_00005_.png"  # never over a file, however soon it came
    assert (simulator.output_dir / "ckpt_00004_.png").read_bytes() == b"written at once"


@pytest.mark.asyncio
async def test_preview_image_writes_to_temp(simulator: Simulator) -> None:
    prompt = quick(1)
    prompt["2"] = {"class_type": "PreviewImage", "inputs": {"images": ["1", 0]}}
    async with aiohttp.ClientSession() as session:
        entry = await wait_history(session, simulator, await submit(session, simulator, prompt))
        image = entry["outputs"]["2"]["images"][0]
        params = {"filename": image["filename"], "type": "temp"}
        async with session.get(simulator.url + "/view", params=params) as response:
            assert response.status == 200
    assert image["type"] == "temp"
    assert image["filename"].startswith("ComfyUI_temp_")


@pytest.mark.asyncio
async def test_view_serves_files_and_applies_comfyui_rules(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        await wait_history(
            session, simulator, await submit(session, simulator, quick(7, "sub/pic"))
        )
        url = simulator.url + "/view"
        cases = {
            "?filename=pic_00001_.png&subfolder=sub": 200,
            "?filename=pic_00001_.png%20[output]&subfolder=sub&type=temp": 200,
            "?filename=pic_00001_.png": 404,
            "?filename=/etc/passwd": 400,
            "?filename=..%2Fx.png": 400,
            "?filename=pic_00001_.png&type=bogus": 400,
            "?filename=x.png&subfolder=../..": 403,
            "": 404,
        }
        for query, expected in cases.items():
            async with session.get(url + query) as response:
                assert response.status == expected, query
        params = {"filename": "pic_00001_.png", "subfolder": "sub", "preview": "jpeg;80"}
        async with session.get(url, params=params) as response:
            body = await response.read()
    assert response.content_type == "image/jpeg"
    assert Image.open(io.BytesIO(body)).format == "JPEG"


@pytest.mark.asyncio
async def test_load_image_reads_the_input_folder(simulator: Simulator) -> None:
    Image.new("RGB", (20, 10), (1, 2, 3)).save(simulator.input_dir / "in.png")
    prompt = {
        "1": {"class_type": "LoadImage", "inputs": {"image": "in.png"}},
        "2": {"class_type": "ImageInvert", "inputs": {"image": ["1", 0]}},
        "3": {"class_type": "SaveImage", "inputs": {"images": ["2", 0], "filename_prefix": "inv"}},
    }
    async with aiohttp.ClientSession() as session:
        await wait_history(session, simulator, await submit(session, simulator, prompt))
        async with session.get(simulator.url + "/view?filename=inv_00001_.png") as response:
            assert response.status == 200
    with Image.open(simulator.output_dir / "inv_00001_.png") as png:
        assert png.size == (20, 10)
        assert png.getpixel((0, 0)) == (254, 253, 252)

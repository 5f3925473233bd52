"""Execution: sampler progress, interrupts, failures, caching, and execution counts."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest
from PIL import Image

from simulator import Simulator
from tests.simulator.sim_helpers import (
    SocketLog,
    checkpoint,
    post,
    quick,
    submit,
    wait_history,
    wait_running,
)


def terminal(entry: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    event, data = entry["status"]["messages"][-1]
    return event, data


@pytest.mark.asyncio
async def test_checkpoint_workflow_reports_progress_per_step(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        log = SocketLog(await session.ws_connect(f"{simulator.url}/ws?clientId=c1"))
        prompt_id = await submit(session, simulator, checkpoint(steps=8), client_id="c1")
        entry = await wait_history(session, simulator, prompt_id)
        await log.wait(lambda m: m["type"] == "executing" and m["data"]["node"] is None)
        await log.close()
    progress = [m["data"] for m in log.messages if m["type"] == "progress"]
    assert [p["value"] for p in progress] == list(range(1, 9))
    assert {p["max"] for p in progress} == {8}
    assert {p["node"] for p in progress} == {"3"}
    assert entry["status"]["status_str"] == "success"
    assert entry["outputs"]["9"]["images"][0]["filename"] == "ckpt_00001_.png"


@pytest.mark.asyncio
async def test_sampler_time_scales_with_steps(make_simulator: Any) -> None:
    """Ordered, not timed: a 5-step and a 40-step sampler started together on two servers (one
    event loop: a busy machine slows both alike); the short one has ended while the long one
    is still short of half its steps. The long one took at least its 40 steps' share."""
    short_sim: Simulator = await make_simulator(job_seconds=0.4)
    long_sim: Simulator = await make_simulator(job_seconds=0.4)
    async with aiohttp.ClientSession() as session:
        log = SocketLog(await session.ws_connect(f"{long_sim.url}/ws?clientId=c1"))
        long_id = await submit(session, long_sim, checkpoint(steps=40), client_id="c1")
        short_id = await submit(session, short_sim, checkpoint(steps=5))
        await wait_history(session, short_sim, short_id)
        steps = [m["data"]["value"] for m in log.messages if m["type"] == "progress"]
        entry = await wait_history(session, long_sim, long_id)
        await log.close()
    assert max(steps, default=0) < 20, f"the long one was at step {max(steps)} of 40"
    events = {e: d["timestamp"] for e, d in entry["status"]["messages"]}
    assert events["execution_success"] - events["execution_start"] >= 760  # ms: 0.4 s x 40/20


@pytest.mark.asyncio
async def test_targeted_interrupt_stops_the_sampler_between_steps(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(job_seconds=0.2, model_load_s=0.0)  # at the sampler
    async with aiohttp.ClientSession() as session:
        running = await submit(session, sim, checkpoint(steps=2000))
        pending = await submit(session, sim, quick(1))
        await wait_running(sim, running)
        await post(session, sim.url + "/interrupt", {"prompt_id": pending})  # not running: no-op
        await post(session, sim.url + "/interrupt", {"prompt_id": running})
        interrupted = await wait_history(session, sim, running)
        after = await wait_history(session, sim, pending)
    event, data = terminal(interrupted)
    assert event == "execution_interrupted"
    assert data["node_type"] in {"KSampler", "CLIPTextEncode"}
    assert interrupted["status"] == {
        **interrupted["status"],
        "status_str": "error",
        "completed": False,
    }
    assert terminal(after)[0] == "execution_success"


@pytest.mark.asyncio
async def test_global_interrupt_without_body_hits_the_running_prompt(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(job_seconds=2.0)
    async with aiohttp.ClientSession() as session:
        running = await submit(session, sim, checkpoint(steps=100))
        await wait_running(sim, running)
        async with session.post(sim.url + "/interrupt") as response:
            assert response.status == 200
        entry = await wait_history(session, sim, running)
    assert terminal(entry)[0] == "execution_interrupted"


@pytest.mark.asyncio
async def test_interrupt_without_client_id_reaches_every_socket(make_simulator: Any) -> None:
    sim: Simulator = await make_simulator(job_seconds=2.0)
    async with aiohttp.ClientSession() as session:
        log = SocketLog(await session.ws_connect(f"{sim.url}/ws?clientId=watcher"))
        running = await submit(session, sim, checkpoint(steps=100))
        await log.wait(lambda m: m["type"] == "progress")
        await post(session, sim.url + "/interrupt", {"prompt_id": running})
        await log.wait(lambda m: m["type"] == "execution_interrupted")
        await log.close()
    assert "execution_start" not in log.types(running)  # lifecycle events need a client_id


@pytest.mark.asyncio
async def test_injected_oom_fails_like_a_gpu_out_of_memory(simulator: Simulator) -> None:
    simulator.fail_next(1, "oom")
    async with aiohttp.ClientSession() as session:
        failed = await wait_history(
            session, simulator, await submit(session, simulator, checkpoint())
        )
        ok = await wait_history(session, simulator, await submit(session, simulator, checkpoint(7)))
    event, data = terminal(failed)
    assert event == "execution_error"
    assert data["node_type"] == "KSampler"
    assert data["exception_type"] == "torch.OutOfMemoryError"
    assert data["exception_message"].startswith("Allocation on device 0")
    assert "(out of memory)" in data["exception_message"]
    assert terminal(ok)[0] == "execution_success"


@pytest.mark.asyncio
async def test_injected_error_and_fault_counts_are_consumed(simulator: Simulator) -> None:
    simulator.fail_next(2, "error")
    async with aiohttp.ClientSession() as session:
        entries = [
            await wait_history(session, simulator, await submit(session, simulator, quick(i)))
            for i in range(3)
        ]
    kinds = [terminal(e)[1].get("exception_type") for e in entries]
    assert kinds == ["RuntimeError", "RuntimeError", None]


@pytest.mark.asyncio
async def test_real_cpu_allocation_failure_matches_the_recording(simulator: Simulator) -> None:
    huge = quick(1, size=16384)
    huge["1"]["inputs"]["batch_size"] = 4096
    async with aiohttp.ClientSession() as session:
        entry = await wait_history(session, simulator, await submit(session, simulator, huge))
    event, data = terminal(entry)
    assert (event, data["exception_type"], data["node_id"]) == (
        "execution_error",
        "RuntimeError",
        "1",
    )
    assert (
        "can't allocate memory: you tried to allocate 4398046511104 bytes"
        in data["exception_message"]
    )
    assert data["current_inputs"]["width"] == [16384]


@pytest.mark.asyncio
async def test_saving_outside_the_output_folder_fails(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        entry = await wait_history(
            session, simulator, await submit(session, simulator, quick(1, "../x"))
        )
    event, data = terminal(entry)
    assert event == "execution_error"
    assert data["exception_type"] == "Exception"
    assert "Saving image outside the output folder is not allowed" in data["exception_message"]
    assert data["executed"] == ["1"]


@pytest.mark.asyncio
async def test_identical_resubmission_is_cached_and_writes_no_file(simulator: Simulator) -> None:
    async with aiohttp.ClientSession() as session:
        log = SocketLog(await session.ws_connect(f"{simulator.url}/ws?clientId=c"))
        first = await wait_history(
            session, simulator, await submit(session, simulator, quick(5), client_id="c")
        )
        again_id = await submit(session, simulator, quick(5), client_id="c")
        again = await wait_history(session, simulator, again_id)
        await log.wait(lambda m: m["type"] == "executing" and m["data"].get("prompt_id") == again_id
                       and m["data"]["node"] is None)  # fmt: skip
        await log.close()
    assert again["outputs"] == first["outputs"]
    cached = again["status"]["messages"][1]
    assert cached[0] == "execution_cached"
    assert sorted(cached[1]["nodes"]) == ["1", "2"]
    assert len(list(simulator.output_dir.glob("*.png"))) == 1
    assert "executed" in log.types(again_id)
    assert "progress_state" in log.types(again_id)


@pytest.mark.asyncio
async def test_hung_job_stays_running_until_restart(simulator: Simulator) -> None:
    simulator.hang_next()
    async with aiohttp.ClientSession() as session:
        hung = await submit(session, simulator, quick(1))
        await wait_running(simulator, hung)
        await post(session, simulator.url + "/interrupt", {})
        assert simulator.state.queue.running is not None
        await simulator.restart()
        done = await wait_history(session, simulator, await submit(session, simulator, quick(2)))
    assert terminal(done)[0] == "execution_success"
    assert simulator.execution_count(hung) == 1


@pytest.mark.asyncio
async def test_previews_follow_the_preview_method_and_the_clients_flag(make_simulator: Any) -> None:
    """With a preview method, each sampler step sends a JPEG to the job's client: type 4 naming
    the prompt to a client that asked for preview metadata, type 1 to one that did not; none
    without a preview method (ComfyUI's default)."""
    sim: Simulator = await make_simulator(job_seconds=0.1, preview_method="auto")
    quiet: Simulator = await make_simulator(job_seconds=0.1)
    async with aiohttp.ClientSession() as session:
        flagged = await session.ws_connect(f"{sim.url}/ws?clientId=new")
        await flagged.send_json(
            {"type": "feature_flags", "data": {"supports_preview_metadata": True}}
        )
        plain = await session.ws_connect(f"{sim.url}/ws?clientId=old")
        silent = await session.ws_connect(f"{quiet.url}/ws?clientId=new")
        new = await submit(session, sim, checkpoint(steps=3), client_id="new")
        await wait_history(session, sim, new)
        old = await submit(session, sim, checkpoint(steps=2), client_id="old")
        await wait_history(session, sim, old)
        unseen = await submit(session, quiet, checkpoint(), client_id="new")
        await wait_history(session, quiet, unseen)
        ends = zip((flagged, plain, silent), (new, old, unseen), strict=True)
        frames = [await binary_frames(ws, prompt_id) for ws, prompt_id in ends]
    typed = [[int.from_bytes(f[:4], "big") for f in found] for found in frames]
    assert typed == [[4, 4, 4], [1, 1], []]
    meta_size = int.from_bytes(frames[0][0][4:8], "big")
    meta = json.loads(frames[0][0][8 : 8 + meta_size])
    assert (meta["prompt_id"], meta["node_id"], meta["image_type"]) == (new, "3", "image/jpeg")
    assert frames[0][0][8 + meta_size :].startswith(b"\xff\xd8")  # a JPEG
    assert frames[1][0][4:8] == (1).to_bytes(4, "big")  # format 1: JPEG
    assert frames[1][0][8:].startswith(b"\xff\xd8")


async def binary_frames(ws: aiohttp.ClientWebSocketResponse, prompt_id: str) -> list[bytes]:
    """The binary frames received until the socket said ``prompt_id`` ended (``executing``
    naming no node; the socket is then closed): counted up to an event, not a quiet spell."""
    found = []
    async with asyncio.timeout(15):
        while True:
            message = await ws.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                found.append(message.data)
            elif message.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"the socket ended before {prompt_id} did: {message}")
            elif _ended(json.loads(message.data), prompt_id):
                break
    await ws.close()
    return found


def _ended(message: dict[str, Any], prompt_id: str) -> bool:
    data = message.get("data", {})
    return (
        message["type"] == "executing"
        and data.get("node") is None
        and (data.get("prompt_id") == prompt_id)
    )


# --- input pictures: what a run reads, and how its output depends on the bytes -----------------


def _picture(simulator: Simulator, name: str, color: tuple[int, int, int]) -> None:
    path = simulator.input_dir / name
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (24, 16), color).save(path)


def image_to_image(image: str, seed: int = 7, prefix: str = "i2i") -> dict[str, Any]:
    """LoadImage → VAEEncode → KSampler (denoise 0.6) → VAEDecode → SaveImage."""
    prompt = checkpoint(seed=seed, steps=4, prefix=prefix)
    del prompt["5"]
    prompt["10"] = {"class_type": "LoadImage", "inputs": {"image": image}}
    prompt["11"] = {"class_type": "VAEEncode", "inputs": {"pixels": ["10", 0], "vae": ["4", 2]}}
    prompt["3"]["inputs"].update(latent_image=["11", 0], denoise=0.6)
    return prompt


async def _output_pixels(
    session: aiohttp.ClientSession, simulator: Simulator, prompt: dict[str, Any]
) -> bytes:
    entry = await wait_history(session, simulator, await submit(session, simulator, prompt))
    assert entry["status"]["status_str"] == "success", entry["status"]
    (image,) = entry["outputs"]["9"]["images"]
    with Image.open(simulator.output_dir / image["subfolder"] / image["filename"]) as png:
        return png.tobytes()


@pytest.mark.asyncio
async def test_an_image_to_image_output_depends_on_the_input_pictures_bytes(
    simulator: Simulator,
) -> None:
    """Same size and seed, other bytes: another picture; the same bytes under another name
    (a subfolder's): the same picture."""
    _picture(simulator, "red.png", (200, 0, 0))
    _picture(simulator, "blue.png", (0, 0, 200))
    _picture(simulator, "batchline/red-again.png", (200, 0, 0))
    async with aiohttp.ClientSession() as session:
        red = await _output_pixels(session, simulator, image_to_image("red.png", prefix="r"))
        blue = await _output_pixels(session, simulator, image_to_image("blue.png", prefix="b"))
        again = await _output_pixels(
            session, simulator, image_to_image("batchline/red-again.png", prefix="a")
        )
    assert red != blue
    assert again == red


@pytest.mark.asyncio
async def test_a_picture_replaced_under_its_name_is_read_again(simulator: Simulator) -> None:
    """LoadImage's cache key is its file's digest (ComfyUI's IS_CHANGED), not its name."""
    _picture(simulator, "in.png", (10, 10, 10))
    prompt = {
        "1": {"class_type": "LoadImage", "inputs": {"image": "in.png"}},
        "2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": "c"}},
    }
    async with aiohttp.ClientSession() as session:
        first = await wait_history(session, simulator, await submit(session, simulator, prompt))
        same = await wait_history(session, simulator, await submit(session, simulator, prompt))
        _picture(simulator, "in.png", (250, 250, 250))
        changed = await wait_history(session, simulator, await submit(session, simulator, prompt))
    assert same["status"]["messages"][1][1]["nodes"] == ["1", "2"]
    assert changed["status"]["messages"][1][1]["nodes"] == []
    assert changed["outputs"] != first["outputs"]
    with Image.open(simulator.output_dir / "c_00002_.png") as png:
        assert png.getpixel((0, 0)) == (250, 250, 250)


@pytest.mark.asyncio
async def test_sim_inputs_read_lists_the_pictures_each_prompt_used(simulator: Simulator) -> None:
    _picture(simulator, "batchline/a.png", (1, 0, 0))
    _picture(simulator, "batchline/b.png", (2, 0, 0))
    async with aiohttp.ClientSession() as session:
        ids = []
        for name in ("batchline/a.png", "batchline/b.png", "batchline/a.png"):
            ids.append(await submit(session, simulator, image_to_image(name, seed=len(ids))))
        for prompt_id in ids:
            await wait_history(session, simulator, prompt_id)
        await simulator.restart()
        async with session.get(simulator.url + "/_sim/inputs_read") as response:
            read = await response.json()
    assert read == {
        ids[0]: ["batchline/a.png"],
        ids[1]: ["batchline/b.png"],
        ids[2]: ["batchline/a.png"],  # its loader's output came from the cache: still noted
    }
    assert simulator.inputs_read() == read, "kept across a restart"


@pytest.mark.asyncio
async def test_a_picture_gone_before_its_run_fails_it_as_comfyui(simulator: Simulator) -> None:
    """Validated while the file was there, run after it went (a long job ahead, interrupted
    once the folder is wiped): LoadImage raises FileNotFoundError, as ComfyUI's does."""
    _picture(simulator, "gone.png", (1, 2, 3))
    async with aiohttp.ClientSession() as session:
        blocker = await submit(session, simulator, checkpoint(steps=10000))
        await wait_running(simulator, blocker)
        prompt_id = await submit(session, simulator, image_to_image("gone.png"))
        simulator.wipe_input()
        await post(session, simulator.url + "/interrupt", {"prompt_id": blocker})
        entry = await wait_history(session, simulator, prompt_id)
    event, data = terminal(entry)
    assert event == "execution_error"
    assert (data["node_type"], data["exception_type"]) == ("LoadImage", "FileNotFoundError")

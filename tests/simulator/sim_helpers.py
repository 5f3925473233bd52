"""Workflows and waiting helpers shared by the simulator tests."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Callable
from typing import Any

import aiohttp

from simulator import Simulator
from tests.core.helpers import wait_for

Json = Any


def quick(color: int = 0, prefix: str = "quick", size: int = 64) -> dict[str, Any]:
    return {
        "1": {
            "class_type": "EmptyImage",
            "inputs": {"width": size, "height": size, "batch_size": 1, "color": color},
        },
        "2": {"class_type": "SaveImage", "inputs": {"images": ["1", 0], "filename_prefix": prefix}},
    }


def blur(color: int = 0, width: int = 256, prefix: str = "rec") -> dict[str, Any]:
    prompt = quick(color, prefix, width)
    prompt["2"] = {
        "class_type": "ImageBlur",
        "inputs": {"image": ["1", 0], "blur_radius": 31, "sigma": 5.0},
    }
    prompt["3"] = {
        "class_type": "SaveImage",
        "inputs": {"images": ["2", 0], "filename_prefix": prefix},
    }
    return prompt


def checkpoint(seed: int = 42, steps: int = 20, prefix: str = "ckpt") -> dict[str, Any]:
    """A realistic SD1.5 text-to-image workflow (simulated model nodes)."""
    return {
        "4": {"class_type": "CheckpointLoaderSimple",
              "inputs": {"ckpt_name": "v1-5-pruned-emaonly.safetensors"}},
        "5": {"class_type": "EmptyLatentImage",
              "inputs": {"width": 128, "height": 96, "batch_size": 1}},
        "6": {"class_type": "CLIPTextEncode", "inputs": {"text": "a red fox", "clip": ["4", 1]}},
        "7": {"class_type": "CLIPTextEncode", "inputs": {"text": "blurry", "clip": ["4", 1]}},
        "3": {"class_type": "KSampler", "inputs": {
            "seed": seed, "steps": steps, "cfg": 7.0, "sampler_name": "euler",
            "scheduler": "normal", "denoise": 1.0, "model": ["4", 0], "positive": ["6", 0],
            "negative": ["7", 0], "latent_image": ["5", 0]}},
        "8": {"class_type": "VAEDecode", "inputs": {"samples": ["3", 0], "vae": ["4", 2]}},
        "9": {"class_type": "SaveImage", "inputs": {"images": ["8", 0], "filename_prefix": prefix}},
    }  # fmt: skip


def fetch(url: str, body: dict[str, object] | None = None) -> dict[str, object]:
    """A JSON answer by blocking HTTP (GET, or POST of ``body``): for a simulator that runs in
    another thread or process."""
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=10) as response:
        result: dict[str, object] = json.loads(response.read())
        return result


async def post(session: aiohttp.ClientSession, url: str, body: Json) -> tuple[int, Json]:
    async with session.post(url, json=body) as response:
        return response.status, _decode(await response.text())


async def get(session: aiohttp.ClientSession, url: str) -> tuple[int, Json]:
    async with session.get(url) as response:
        return response.status, _decode(await response.text())


def _decode(text: str) -> Json:
    try:
        return json.loads(text)
    except ValueError:
        return text


async def submit(session: aiohttp.ClientSession, sim: Simulator, prompt: dict[str, Any],
                 **fields: Any) -> str:  # fmt: skip
    status, body = await post(session, sim.url + "/prompt", {"prompt": prompt, **fields})
    assert status == 200, body
    prompt_id: str = body["prompt_id"]
    return prompt_id


async def wait_history(session: aiohttp.ClientSession, sim: Simulator, prompt_id: str,
                       limit: float = 10.0) -> dict[str, Any]:  # fmt: skip
    async with asyncio.timeout(limit):
        while True:
            _, body = await get(session, f"{sim.url}/history/{prompt_id}")
            if body:
                entry: dict[str, Any] = body[prompt_id]
                return entry
            await asyncio.sleep(0.02)


async def wait_running(sim: Simulator, prompt_id: str) -> None:
    def running() -> bool:
        item = sim.state.queue.running
        return item is not None and item.prompt_id == prompt_id

    await wait_for(running)


class SocketLog:
    """Collects a WebSocket's JSON messages in a background task."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.TEXT:
                self.messages.append(json.loads(message.data))

    def types(self, prompt_id: str) -> list[str]:
        return [
            m["type"] for m in self.messages if (m.get("data") or {}).get("prompt_id") == prompt_id
        ]

    async def wait(self, predicate: Callable[[dict[str, Any]], bool], limit: float = 10.0) -> None:
        await wait_for(lambda: any(predicate(m) for m in self.messages), limit)

    async def close(self) -> None:
        await self.ws.close()
        await self.task

"""Tests for simulator.nodes: what each node does, where it runs, what it draws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest
from PIL import Image

from simulator import Simulator
from simulator.images import solid
from simulator.nodes import runs_inline
from tests.simulator.sim_helpers import (
    checkpoint,
    submit,
    wait_history,
)


def test_small_real_nodes_run_on_the_loop_big_ones_and_file_reads_in_a_thread() -> None:
    small, big = solid(64, 64, 1, 0), solid(512, 512, 1, 0)
    assert runs_inline("EmptyImage", {"width": 64, "height": 64, "batch_size": 1, "color": 0})
    assert runs_inline("SaveImage", {"images": small, "filename_prefix": "x"})
    assert runs_inline("PrimitiveInt", {"value": 3})
    assert not runs_inline("EmptyImage", {"width": 256, "height": 256, "batch_size": 2})
    assert not runs_inline("ImageScale", {"image": small, "width": 1024, "height": 1024})
    assert not runs_inline("ImageBlur", {"image": big, "blur_radius": 3, "sigma": 1.0})
    assert not runs_inline("LoadImage", {"image": "tiny.png"})


@pytest.mark.asyncio
async def test_a_samplers_cfg_and_prompt_change_the_picture_and_the_same_inputs_repeat_it(
    simulator: Simulator,
) -> None:
    def made_with(prefix: str, cfg: float = 7.0, text: str = "a red fox") -> dict[str, Any]:
        prompt = checkpoint(seed=5, prefix=prefix)
        prompt["3"]["inputs"]["cfg"] = cfg
        prompt["6"]["inputs"]["text"] = text
        return prompt

    prompts = [
        made_with("a"),
        made_with("b", cfg=4.0),
        made_with("c", text="a wolf"),
        made_with("d"),
    ]
    pictures = []
    async with aiohttp.ClientSession() as session:
        for prompt in prompts:
            entry = await wait_history(session, simulator, await submit(session, simulator, prompt))
            (image,) = entry["outputs"]["9"]["images"]
            with Image.open(Path(simulator.folders.output) / image["filename"]) as opened:
                pictures.append(opened.tobytes())
    same, other_cfg, other_prompt, again = pictures
    assert other_cfg != same, "a grid over cfg shows different pictures, as ComfyUI's would"
    assert other_prompt != same
    assert again == same, "the same seed and inputs: the same picture"

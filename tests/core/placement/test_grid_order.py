"""A grid's axes in the order that switches models least."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from core.placement.grid_order import (
    LORA,
    MAIN_MODEL,
    NO_MODEL,
    OTHER_MODEL,
    axis_order,
    model_axes,
    switch_cost,
)

PROMPT: dict[str, Any] = {
    "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "a.safetensors"}},
    "3": {"class_type": "KSampler", "inputs": {"cfg": 7.0, "steps": 20, "model": ["10", 0]}},
    "10": {"class_type": "LoraLoader", "inputs": {"lora_name": "l.safetensors"}},
    "11": {"class_type": "VAELoader", "inputs": {"vae_name": "pixel_space"}},
    "12": {"class_type": "UnetLoaderGGUF", "inputs": {"unet_name": "f.gguf"}},
}
CKPTS = ["a.safetensors", "b.safetensors"]


def test_each_axis_costs_by_what_it_sweeps() -> None:
    assert switch_cost("4.ckpt_name", CKPTS, PROMPT) == MAIN_MODEL
    assert switch_cost("10.lora_name", ["l.safetensors", "m.safetensors"], PROMPT) == LORA
    assert switch_cost("11.vae_name", ["pixel_space", "ae.safetensors"], PROMPT) == OTHER_MODEL
    assert switch_cost("12.unet_name", ["f.gguf", "g.gguf"], PROMPT) == OTHER_MODEL
    assert switch_cost("12.unet_name", ["f.gguf", "auto"], PROMPT) == NO_MODEL
    assert switch_cost("3.cfg", [5.0, 7.0], PROMPT) == NO_MODEL
    assert switch_cost("99.ckpt_name", CKPTS, PROMPT) == OTHER_MODEL  # a node gone: values say
    assert switch_cost("3.cfg", [], PROMPT) == NO_MODEL


def test_the_checkpoint_axis_goes_outermost() -> None:
    axes = [("3.cfg", [5.0, 7.0, 9.0]), ("4.ckpt_name", CKPTS)]
    order = axis_order(axes, PROMPT)
    assert order == [1, 0]
    points = list(itertools.product(*(axes[i][1] for i in order)))
    ckpt_switches = sum(a[0] != b[0] for a, b in itertools.pairwise(points))
    assert ckpt_switches == len(CKPTS) - 1
    assert model_axes(axes, PROMPT) == ["4.ckpt_name"]


def test_axes_of_equal_cost_keep_the_artists_order() -> None:
    axes = [("3.cfg", [5.0]), ("3.steps", [10, 20]), ("10.lora_name", ["l.safetensors"])]
    assert axis_order(axes, PROMPT) == [2, 0, 1]
    assert axis_order([], PROMPT) == []


KEYS = ["4.ckpt_name", "10.lora_name", "11.vae_name", "3.cfg", "3.steps"]


@given(st.permutations(KEYS).map(lambda keys: keys[:3]))
def test_the_order_is_by_cost_and_a_permutation(keys: list[str]) -> None:
    axes = [(key, ["x.safetensors"] if "name" in key else [1.0]) for key in keys]
    order = axis_order(axes, PROMPT)
    assert sorted(order) == list(range(len(axes)))
    costs = [switch_cost(*axes[i], PROMPT) for i in order]
    assert costs == sorted(costs)

"""Choices a server does not list, found against the simulator's catalogue."""

from __future__ import annotations

from core.presets import list_parameters
from core.presets.availability import unlisted_choices
from simulator.nodes import simulated_catalogue

API = {
    "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "gone.safetensors"}},
    "8": {
        "class_type": "LoraLoader",
        "inputs": {"lora_name": "add_detail.safetensors", "strength_model": 1.0},
    },
    "9": {"class_type": "KSampler", "inputs": {"sampler_name": "euler", "steps": 20}},
    "10": {"class_type": "MyCustomNode", "inputs": {"mode": "whatever"}},
}


def test_values_the_server_does_not_list() -> None:
    catalogue = simulated_catalogue()
    parameters = list_parameters(API, catalogue)
    found = unlisted_choices(parameters, {}, catalogue)
    assert [(str(p.ref), value) for p, value in found] == [("4.ckpt_name", "gone.safetensors")]
    changed = {"4.ckpt_name": "sd_xl_base_1.0.safetensors", "8.lora_name": "nope.safetensors"}
    found = unlisted_choices(parameters, changed, catalogue)
    assert [(str(p.ref), value) for p, value in found] == [("8.lora_name", "nope.safetensors")]

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


def test_per_server_which_lack_a_value_which_have_it_and_their_own_files() -> None:
    from core.catalogue import Catalogue
    from core.presets.availability import ChoiceKind, missing_classes, unlisted_by_server

    both = simulated_catalogue()
    info = {
        "CheckpointLoaderSimple": {
            "input": {"required": {"ckpt_name": [["gone.safetensors", "mine.safetensors"]]}}
        },
        "KSampler": {"input": {"required": {"sampler_name": [["euler"]]}}},
    }
    small = Catalogue.from_object_info(info, source="small")
    parameters = list_parameters(API, both)
    found = unlisted_by_server(parameters, {}, [("a", both), ("b", small)])
    assert [(str(u.parameter.ref), u.lacking, u.having, u.kind) for u in found] == [
        ("4.ckpt_name", ("a",), ("b",), ChoiceKind.model),
    ], "the LoRA and the custom node: unknown to b, left to its own validation"
    assert found[0].offered == {"a": both.get("CheckpointLoaderSimple").input("ckpt_name").choices}
    changed = {"9.sampler_name": "my_sampler", "4.ckpt_name": "mine.safetensors"}
    found = unlisted_by_server(parameters, changed, [("a", both), ("b", small)])
    assert [(str(u.parameter.ref), u.lacking, u.kind) for u in found] == [
        ("4.ckpt_name", ("a",), ChoiceKind.model),
        ("9.sampler_name", ("a", "b"), ChoiceKind.choice),
    ]
    assert missing_classes(API, [("a", both), ("b", small)]) == {
        "a": ["MyCustomNode"],
        "b": ["LoraLoader", "MyCustomNode"],
    }

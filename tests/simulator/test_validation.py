"""Validation: ComfyUI's checks, coercions and error shapes, on the simulator's catalogue."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from simulator.nodes import simulated_catalogue, simulated_object_info
from simulator.validation import Validator, Verdict
from tests.simulator.sim_helpers import checkpoint, quick


def validate(prompt: dict[str, Any], tmp_path: Path, targets: list[str] | None = None) -> Verdict:
    validator = Validator(simulated_catalogue(), simulated_object_info(), tmp_path, False)
    return validator.validate(prompt, targets)


def only_error(verdict: Verdict) -> dict[str, Any]:
    (entry,) = verdict.node_errors.values()
    (error,) = entry["errors"]
    result: dict[str, Any] = error
    return result


def test_checkpoint_workflow_with_added_model_files_validates(tmp_path: Path) -> None:
    verdict = validate(checkpoint(), tmp_path)
    assert verdict.error is None
    assert verdict.outputs == ["9"]
    assert verdict.node_errors == {}


def test_values_are_coerced_in_place(tmp_path: Path) -> None:
    prompt = quick(1)
    prompt["1"]["inputs"]["width"] = "5"
    prompt["1"]["inputs"]["color"] = 3.9
    assert validate(prompt, tmp_path).error is None
    assert prompt["1"]["inputs"]["width"] == 5
    assert prompt["1"]["inputs"]["color"] == 3


def test_not_an_int_is_invalid_input_type(tmp_path: Path) -> None:
    prompt = quick(1)
    prompt["1"]["inputs"]["width"] = "wide"
    assert only_error(validate(prompt, tmp_path))["type"] == "invalid_input_type"


@pytest.mark.parametrize(("value", "kind"), [(0, "value_smaller_than_min"),
                                             (16385, "value_bigger_than_max")])  # fmt: skip
def test_range_errors(value: int, kind: str, tmp_path: Path) -> None:
    prompt = quick(1)
    prompt["1"]["inputs"]["width"] = value
    verdict = validate(prompt, tmp_path)
    assert verdict.error is not None
    assert verdict.error["type"] == "prompt_outputs_failed_validation"
    error = only_error(verdict)
    assert error["type"] == kind
    assert error["extra_info"]["received_value"] == value
    assert verdict.node_errors["1"]["dependent_outputs"] == ["2"]


def test_value_not_in_list_hides_long_lists(tmp_path: Path) -> None:
    prompt = checkpoint()
    prompt["3"]["inputs"]["sampler_name"] = "nope"
    prompt["4"]["inputs"]["ckpt_name"] = "missing.safetensors"
    verdict = validate(prompt, tmp_path)
    sampler = verdict.node_errors["3"]["errors"][0]
    ckpt = verdict.node_errors["4"]["errors"][0]
    assert sampler["type"] == ckpt["type"] == "value_not_in_list"
    assert sampler["extra_info"]["input_config"] is None  # more than 20 samplers
    assert ckpt["extra_info"]["input_config"][0][0] == "sd_xl_base_1.0.safetensors"
    assert "(list of length" in sampler["details"]


def test_links_are_checked(tmp_path: Path) -> None:
    prompt = quick(1)
    prompt["2"]["inputs"]["images"] = ["1"]
    assert only_error(validate(prompt, tmp_path))["type"] == "bad_linked_input"
    prompt = checkpoint()
    prompt["8"]["inputs"]["vae"] = ["4", 0]
    assert only_error(validate(prompt, tmp_path))["type"] == "return_type_mismatch"


def test_one_valid_output_queues_with_node_errors(tmp_path: Path) -> None:
    prompt = quick(1)
    prompt["3"] = {"class_type": "SaveImage", "inputs": {"filename_prefix": "x"}}
    verdict = validate(prompt, tmp_path)
    assert verdict.error is None
    assert verdict.outputs == ["2"]
    assert verdict.node_errors["3"]["errors"][0]["type"] == "required_input_missing"


def test_partial_execution_targets(tmp_path: Path) -> None:
    prompt = quick(1)
    prompt["3"] = copy.deepcopy(prompt["2"])
    assert validate(prompt, tmp_path, ["3"]).outputs == ["3"]
    verdict = validate(prompt, tmp_path, [])
    assert verdict.error is not None
    assert verdict.error["type"] == "prompt_no_outputs"


def test_unreachable_nodes_are_not_validated_but_must_exist(tmp_path: Path) -> None:
    prompt = quick(1)
    prompt["9"] = {"class_type": "EmptyImage", "inputs": {"width": -1}}
    assert validate(prompt, tmp_path).error is None
    prompt["9"] = {"class_type": "Bogus", "inputs": {}}
    verdict = validate(prompt, tmp_path)
    assert verdict.error == {
        "type": "invalid_prompt",
        "message": "Cannot execute because node Bogus does not exist.",
        "details": "Node ID '#9'",
        "extra_info": {},
    }


def test_load_image_checks_the_input_folder(tmp_path: Path) -> None:
    prompt = quick(1)
    prompt["1"] = {"class_type": "LoadImage", "inputs": {"image": "a.png"}}
    error = only_error(validate(prompt, tmp_path))
    assert error["details"] == "image - Invalid image file: a.png"
    (tmp_path / "a.png").write_bytes(b"x")
    assert validate(prompt, tmp_path).error is None

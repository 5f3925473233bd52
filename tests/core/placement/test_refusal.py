"""A refusal for a model the server no longer lists: which files, which lists to read again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.comfy.node_errors import parse_rejection
from core.placement.needs import job_needs
from core.placement.refusal import Refresh, refresh_for, refused_needs

PROMPT = {
    "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "gone.safetensors"}},
    "10": {"class_type": "LoraLoader", "inputs": {"lora_name": "here.safetensors"}},
    "12": {"class_type": "UnetLoaderGGUF", "inputs": {"unet_name": "gone.gguf"}},
}
RECORDINGS = Path(__file__).parents[2] / "data" / "recordings"


def refusal(*errors: tuple[str, str, str]) -> tuple[Any, ...]:
    """The node errors of a 400 of ComfyUI's validation, written as execution.py writes them."""
    by_node = {
        node_id: {
            "class_type": PROMPT[node_id]["class_type"],
            "dependent_outputs": ["9"],
            "errors": [
                {
                    "type": kind,
                    "message": "Value not in list",
                    "details": f"{name}: '{PROMPT[node_id]['inputs'][name]}' not in []",
                    "extra_info": {"input_name": name},
                }
            ],
        }
        for node_id, name, kind in errors
    }
    body = {"error": {"type": "prompt_outputs_failed_validation", "message": "failed"}}
    return parse_rejection(body | {"node_errors": by_node}, "/prompt").node_errors


def test_a_refused_checkpoint_relists_its_folder() -> None:
    refused = refused_needs(refusal(("4", "ckpt_name", "value_not_in_list")), job_needs(PROMPT))
    assert [need.name for need in refused] == ["gone.safetensors"]
    assert refresh_for(refused) == Refresh(frozenset({"checkpoints"}))
    assert refresh_for(refused).needed


def test_a_refused_custom_nodes_file_relists_everything() -> None:
    errors = refusal(
        ("12", "unet_name", "value_not_in_list"), ("4", "ckpt_name", "value_not_in_list")
    )
    refused = refused_needs(errors, job_needs(PROMPT))
    assert [need.name for need in refused] == ["gone.safetensors", "gone.gguf"]
    assert refresh_for(refused) == Refresh(frozenset({"checkpoints"}), whole=True)


def test_other_validation_errors_are_no_missing_model() -> None:
    errors = refusal(("10", "lora_name", "custom_validation_failed"))
    assert refused_needs(errors, job_needs(PROMPT)) == ()
    assert not refresh_for(()).needed
    recorded = json.loads((RECORDINGS / "prompt_400_missing_file.json").read_text("utf-8"))
    real = parse_rejection(recorded["response"], "/prompt")
    assert real.node_errors  # a real ComfyUI's refusal of a missing input picture
    assert refused_needs(real.node_errors, job_needs(PROMPT)) == ()

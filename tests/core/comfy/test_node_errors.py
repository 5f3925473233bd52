"""A refused prompt's answer parsed from recorded rejections: its node, input and complaint."""

from __future__ import annotations

import pytest

from core.comfy.node_errors import parse_rejection
from tests.core.comfy.conftest import Recording


def test_recorded_rejection_names_node_and_input(recording: Recording) -> None:
    rejected = parse_rejection(
        recording("prompt_400_value_out_of_range")["response"], "POST /prompt"
    )
    assert rejected.error.type == "prompt_outputs_failed_validation"
    (error,) = rejected.node_errors
    assert (error.node_id, error.class_type, error.input_name) == ("1", "EmptyImage", "width")
    assert error.type == "value_smaller_than_min"
    assert "Value -5 smaller than min of 1" in str(rejected)
    assert rejected.route == "POST /prompt"


@pytest.mark.parametrize(
    "name",
    [
        "prompt_400_missing_file",
        "prompt_400_no_outputs",
        "prompt_400_required_input_missing",
        "prompt_400_unknown_class",
    ],
)
def test_every_recorded_rejection_parses(recording: Recording, name: str) -> None:
    rejected = parse_rejection(recording(name)["response"], "POST /prompt")
    assert rejected.error.message

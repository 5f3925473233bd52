"""What the controller keeps of a refused prompt and of a failed run, as an AttemptError."""

from __future__ import annotations

from core.controller.causes import failure_error, rejection_error
from core.errors import ComfyRejected, ExecutionFailure, NodeError, PromptError
from core.ledger.attempt_error import AttemptError, ErrorKind


def test_a_refused_prompt_keeps_its_first_node_errors_node_input_and_complaint() -> None:
    refused = ComfyRejected(
        PromptError("prompt_outputs_failed_validation", "Prompt outputs failed validation"),
        (
            NodeError("4", "ImageScale", "value_not_in_list", "Value not in list", "bogus", "mode"),
            NodeError("5", "SaveImage", "required_input_missing", "Required input is missing"),
        ),
    )
    error = rejection_error(refused)
    assert error == AttemptError(
        ErrorKind.validation,
        "Value not in list: bogus",
        node_id="4",
        node_type="ImageScale",
        input_name="mode",
        error_type="prompt_outputs_failed_validation",
        node_errors=tuple(e.describe() for e in refused.node_errors),
    )
    assert error.short() == "validation error in ImageScale (node 4), input 'mode': " + (
        "Value not in list: bogus"
    )


def test_a_refused_prompt_without_node_errors_keeps_its_own_message() -> None:
    refused = ComfyRejected(PromptError("invalid_prompt", "Cannot execute", "no outputs"))
    error = rejection_error(refused)
    assert (error.message, error.node_id, error.node_errors) == (
        "Cannot execute: no outputs",
        None,
        (),
    )
    assert error.short() == "validation error: Cannot execute: no outputs"


def test_a_failed_run_keeps_its_node_exception_and_traceback() -> None:
    failure = ExecutionFailure(
        "oom", "3", "KSampler", "torch.OutOfMemoryError", "Allocation", {"traceback": "tb"}
    )
    assert failure_error(failure) == AttemptError(
        ErrorKind.oom, "Allocation", "3", "KSampler", exception_type="torch.OutOfMemoryError",
        traceback="tb",
    )  # fmt: skip
    assert failure_error(ExecutionFailure("other", message="boom")).kind == ErrorKind.execution

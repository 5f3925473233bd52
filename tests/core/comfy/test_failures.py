"""The execution-failure classifier, fed with recorded history entries."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from core.comfy.failures import failure_from_error, failure_from_messages, is_oom
from core.comfy.responses import HistoryEntry, parse_history
from core.comfy.shapes import Shape
from core.errors import ComfyProtocolError

SHAPE = Shape("GET /history")
EntryOf = Callable[[str], HistoryEntry]


@pytest.fixture
def entry_of(recording: Callable[[str], dict[str, Any]]) -> Callable[[str], HistoryEntry]:
    def load(name: str) -> HistoryEntry:
        (entry,) = parse_history(recording(name)["response"], "GET /history/x")
        return entry

    return load


def test_recorded_cpu_allocation_failure_is_oom(
    entry_of: Callable[[str], HistoryEntry],
) -> None:
    entry = entry_of("history_execution_error_oom")
    failure = entry.failure
    assert failure is not None
    assert failure.kind == "oom"
    assert (failure.node_id, failure.node_type) == ("1", "EmptyImage")
    assert failure.exception_type == "RuntimeError"
    assert "can't allocate memory" in failure.message
    assert not failure.message.endswith("\n")
    assert "nodes.py" in failure.extra["traceback"]
    assert not entry.succeeded


def test_recorded_interrupt_is_interrupted(entry_of: EntryOf) -> None:
    failure = entry_of("history_interrupted").failure
    assert failure is not None
    assert failure.kind == "interrupted"
    assert (failure.node_id, failure.node_type) == ("3", "SaveImage")


def test_recorded_success_has_no_failure(entry_of: EntryOf) -> None:
    entry = entry_of("history_success")
    assert entry.failure is None
    assert entry.succeeded
    assert entry.number == 11


@pytest.mark.parametrize(
    ("exception_type", "message"),
    [
        ("torch.OutOfMemoryError", "Allocation on device 0 would exceed allowed memory."),
        ("torch.cuda.OutOfMemoryError", "CUDA out of memory. Tried to allocate 2.00 GiB"),
        ("torch.AcceleratorError", "CUDA error: out of memory"),
        ("RuntimeError", "MPS backend out of memory (MPS allocated: 17.00 GB)"),
        ("RuntimeError", "DefaultCPUAllocator: can't allocate memory: you tried to allocate 8"),
        ("RuntimeError", "Error code 12 (Cannot allocate memory)"),
        ("Exception", "Allocation on device (OUT OF MEMORY)"),
    ],
)
def test_out_of_memory_forms(exception_type: str, message: str) -> None:
    assert is_oom(exception_type, message)


@pytest.mark.parametrize(
    ("exception_type", "message"),
    [
        ("Exception", "Saving image outside the output folder is not allowed."),
        ("re.error", "missing ), unterminated subpattern at position 0"),
        ("torch.AcceleratorError", "CUDA error: device-side assert triggered"),
        (None, ""),
    ],
)
def test_other_failures_are_not_oom(exception_type: str | None, message: str) -> None:
    assert not is_oom(exception_type, message)


def test_error_payload_without_optional_fields() -> None:
    failure = failure_from_error({"prompt_id": "p"}, SHAPE)
    assert failure.kind == "other"
    assert failure.node_id is None
    assert failure.message == ""


def test_numeric_node_id_is_text() -> None:
    failure = failure_from_error({"node_id": 5, "exception_message": "x"}, SHAPE)
    assert failure.node_id == "5"


def test_hostile_traceback_is_ignored() -> None:
    failure = failure_from_error({"traceback": [1, {"a": 2}]}, SHAPE)
    assert failure.extra == {}


@pytest.mark.parametrize(
    "messages",
    [
        "not a list",
        [["execution_error"]],
        [[1, {}]],
        [["execution_error", "not an object"]],
        [["execution_error", {"exception_message": 3}]],
    ],
)
def test_malformed_messages_are_protocol_errors(messages: object) -> None:
    with pytest.raises(ComfyProtocolError, match="GET /history"):
        failure_from_messages(messages, SHAPE)


def test_messages_without_terminal_failure() -> None:
    messages = [["execution_start", {}], ["execution_success", {}]]
    assert failure_from_messages(messages, SHAPE) is None

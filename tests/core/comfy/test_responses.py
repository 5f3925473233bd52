"""Parsing recorded ComfyUI 0.3.64 answers and WebSocket messages into typed objects."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from core.comfy.events import (
    Executed,
    Executing,
    ExecutionError,
    ExecutionInterrupted,
    ExecutionStart,
    ExecutionSuccess,
    Progress,
    Status,
    parse_event,
)
from core.comfy.jobs import parse_job_detail
from core.comfy.node_errors import parse_rejection
from core.comfy.responses import (
    ImageRef,
    parse_history,
    parse_queue,
    parse_submit,
    parse_system_stats,
)
from core.errors import ComfyProtocolError

Recording = Callable[[str], dict[str, Any]]


def test_submit_answer(recording: Recording) -> None:
    result = parse_submit(recording("prompt_200_client_prompt_id")["response"], "POST /prompt")
    assert result.prompt_id == "a148f8fc-9f5a-4ca5-bcc8-3468390781a5"
    assert result.number == 11
    assert result.node_errors == ()
    assert result.dropped_outputs == ()


def test_submit_with_node_errors_is_a_warning() -> None:
    body = {
        "prompt_id": "p",
        "number": 3,
        "node_errors": {
            "5": {
                "class_type": "ImageScale",
                "dependent_outputs": ["9"],
                "errors": [
                    {
                        "type": "value_not_in_list",
                        "message": "Value not in list",
                        "details": "upscale_method: 'x' not in [...]",
                        "extra_info": {"input_name": "upscale_method"},
                    }
                ],
            }
        },
    }
    result = parse_submit(body, "POST /prompt")
    (error,) = result.node_errors
    assert (error.node_id, error.class_type, error.input_name) == (
        "5",
        "ImageScale",
        "upscale_method",
    )
    assert result.dropped_outputs == ("9",)


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


def test_queue_pending_is_sorted_and_slim(recording: Recording) -> None:
    body = recording("queue_running_and_pending")["response"]
    random.Random(3).shuffle(body["queue_pending"])
    snapshot = parse_queue(body, "GET /queue")
    assert [item.number for item in snapshot.pending] == [14, 15, 16]
    assert snapshot.running[0].prompt_id == "3c7b884e-6814-44d1-b19f-29d6ced7ca88"
    assert snapshot.running[0].client_id == "recorder-4afb7bea"
    assert snapshot.place_of("7b705824-0cd3-4f91-87ac-df8213de473e") == "pending"
    assert snapshot.place_of("3c7b884e-6814-44d1-b19f-29d6ced7ca88") == "running"
    assert "nope" not in snapshot
    assert len(snapshot) == 4


def test_queue_ties_break_on_prompt_id() -> None:
    body = {"queue_running": [], "queue_pending": [[1, "b", {}, {}, []], [1, "a", {}, {}, []]]}
    assert [item.prompt_id for item in parse_queue(body, "GET /queue").pending] == ["a", "b"]


def test_history_list_keeps_server_order(recording: Recording) -> None:
    entries = parse_history(recording("history_list_max_items_2")["response"], "GET /history")
    assert len(entries) == 2
    assert [e.prompt_id[:8] for e in entries] == ["ed52f1c1", "b9659c18"]  # oldest first


def test_history_images(recording: Recording) -> None:
    (entry,) = parse_history(recording("history_success")["response"], "GET /history/x")
    assert entry.images == (ImageRef("quick_00001_.png", "", "output", node_id="2"),)


def test_history_ignores_other_output_kinds() -> None:
    body = {
        "p": {
            "status": {"status_str": "success", "completed": True, "messages": []},
            "outputs": {"4": {"text": ["hello"]}, "5": {"latents": [{"x": 1}]}},
        }
    }
    (entry,) = parse_history(body, "GET /history/p")
    assert entry.images == ()
    assert entry.number is None


def test_system_stats(recording: Recording) -> None:
    stats = parse_system_stats(recording("system_stats")["response"], "GET /system_stats")
    assert stats.comfyui_version == "0.3.64"
    assert stats.devices[0].type == "cpu"


def test_job_detail() -> None:
    job = parse_job_detail({"id": "p", "status": "pending", "priority": 3}, "GET /api/jobs/p")
    assert (job.id, job.status, job.priority, job.finished) == ("p", "pending", 3, False)
    detail = {
        "id": "p",
        "status": "failed",
        "outputs": {},
        "execution_status": {
            "status_str": "error",
            "completed": False,
            "messages": [["execution_error", {"exception_type": "torch.OutOfMemoryError"}]],
        },
    }
    entry = parse_job_detail(detail, "GET /api/jobs/p").to_history_entry()
    assert entry.failure is not None
    assert entry.failure.kind == "oom"
    assert (entry.status, entry.completed) == ("error", False)


def test_cancelled_job_counts_as_interrupted() -> None:
    job = parse_job_detail({"id": "p", "status": "cancelled"}, "GET /api/jobs/p")
    assert job.failure is not None
    assert job.failure.kind == "interrupted"


def _transcript_events(recording: Recording) -> list[Any]:
    messages = recording("websocket_transcript")["messages"]
    frames = [json.dumps(m["text"]) for m in messages if "text" in m]
    return [event for frame in frames if (event := parse_event(frame)) is not None]


def test_transcript_events_for_one_prompt_in_order(recording: Recording) -> None:
    pid = "de3b8d45-221c-4ea1-adb2-2784fc2cd8a4"
    events = [e for e in _transcript_events(recording) if getattr(e, "prompt_id", None) == pid]
    kinds = [type(e).__name__ for e in events if not isinstance(e, Executing)]
    assert kinds == ["ExecutionStart", "ExecutionCached", "Executed", "ExecutionSuccess"]
    assert events[-1] == Executing(prompt_id=pid, node=None)
    executed = next(e for e in events if isinstance(e, Executed))
    assert executed.images == (ImageRef("rec_00001_.png", "", "output", node_id="3"),)


def test_transcript_failures(recording: Recording) -> None:
    events = _transcript_events(recording)
    (error,) = [e for e in events if isinstance(e, ExecutionError)]
    assert error.failure.kind == "oom"
    interrupts = [e for e in events if isinstance(e, ExecutionInterrupted)]
    assert [e.failure.kind for e in interrupts] == ["interrupted", "interrupted"]
    assert events[0] == Status(queue_remaining=0)


@pytest.mark.parametrize(
    ("frame", "expected"),
    [
        ('{"type": "executing", "data": {"node": "3"}}', Executing(prompt_id=None, node="3")),
        (
            '{"type": "progress", "data": {"value": 3, "max": 20, "prompt_id": "p", "node": "5"}}',
            Progress(prompt_id="p", node="5", value=3.0, max=20.0),
        ),
        (
            '{"type": "execution_start", "data": {"prompt_id": "p", "timestamp": 5}}',
            ExecutionStart(prompt_id="p", timestamp=5),
        ),
        ('{"type": "execution_success", "data": {"prompt_id": "p"}}', ExecutionSuccess("p")),
    ],
)
def test_single_frames(frame: str, expected: object) -> None:
    assert parse_event(frame) == expected


@pytest.mark.parametrize(
    "frame",
    [
        '{"type": "crystools.monitor", "data": {}}',
        '{"type": "progress_state", "data": {"nodes": {}}}',
    ],
)
def test_unknown_message_types_are_skipped(frame: str) -> None:
    assert parse_event(frame) is None


@pytest.mark.parametrize(
    "frame",
    [
        "not json",
        "[1, 2]",
        '{"type": "status", "data": {"status": {"exec_info": {"queue_remaining": "3"}}}}',
        '{"type": "progress", "data": {"value": 1}}',
        '{"type": "execution_start", "data": []}',
        '{"type": 7}',
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_malformed_frames_are_protocol_errors(frame: str) -> None:
    with pytest.raises(ComfyProtocolError, match=r"^WS /ws: "):
        parse_event(frame)

"""Parsing recorded ComfyUI 0.3.64 WebSocket messages (text and binary frames) into typed events."""

from __future__ import annotations

import json
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
from core.comfy.responses import (
    ImageRef,
)
from core.errors import ComfyProtocolError
from tests.core.comfy.conftest import Recording


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

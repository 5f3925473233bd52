"""Parsing recorded ComfyUI 0.3.64 HTTP answers (submit, queue, history, system stats) into typed
objects."""

from __future__ import annotations

import random

from core.comfy.responses import (
    ImageRef,
    parse_history,
    parse_queue,
    parse_submit,
    parse_system_stats,
)
from tests.core.comfy.conftest import Recording


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

"""Tests for core.batch.prompt: the prompt an attempt sends, and the pictures it will write."""

from __future__ import annotations

from core.batch.prompt import expected_outputs, extra_data, prompt_for
from core.comfy import LEDGER_MARK, ImageRef

API = {
    "1": {"class_type": "SaveImage", "inputs": {"filename_prefix": "/fox", "images": ["2", 0]}},
    "2": {"class_type": "EmptyImage", "inputs": {"width": 8}},
    "3": {"class_type": "SaveImage", "inputs": {"filename_prefix": "%date%/fox"}},
}


def test_every_prefix_goes_under_the_batch_folder_and_the_attempt_folder() -> None:
    prompt = prompt_for(API, {"2.width": 16}, "batch_7", "p1")
    assert prompt["1"]["inputs"]["filename_prefix"] == "batchline/batch_7/p1/fox"
    assert prompt["2"]["inputs"] == {"width": 16}
    assert (
        prompt_for(API, {}, "batch_7")["1"]["inputs"]["filename_prefix"] == "batchline/batch_7/fox"
    )
    assert API["1"]["inputs"]["filename_prefix"] == "/fox", "the preset's workflow is untouched"


def test_expected_outputs_name_each_save_node_picture_but_not_a_dated_prefix() -> None:
    prompt = prompt_for(API, {}, "b", "p")
    assert expected_outputs(prompt, 3) == [
        ImageRef("fox_00003_.png", "batchline/b/p", "output", "1")
    ]


def test_extra_data_marks_the_ledger_and_carries_the_editor_graph() -> None:
    assert extra_data(None, "L1") == {LEDGER_MARK: "L1"}
    graph = {"nodes": []}
    assert extra_data(graph, "L1") == {LEDGER_MARK: "L1", "extra_pnginfo": {"workflow": graph}}

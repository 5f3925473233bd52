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


def test_each_picture_is_put_in_as_the_server_names_it() -> None:
    """Two inputs of one picture and one of another, each server's own name in their place;
    a picture the server has no name for is not sent as something else."""
    import pytest

    from core.errors import CompositionError
    from core.inputs import PictureRef

    api = {
        "4": {"class_type": "LoadImage", "inputs": {"image": "example.png"}},
        "5": {"class_type": "LoadImageMask", "inputs": {"image": "example.png"}},
        "6": {"class_type": "LoadImage", "inputs": {"image": "example.png"}},
    }
    fox, owl = (PictureRef(c * 64, f"{c}.png", f"/p/{c}.png", 3) for c in "ab")
    params = {"4.image": fox.to_param(), "5.image": fox.to_param(), "6.image": owl.to_param()}
    names = {fox.sha256: "batchline/fox.png", owl.sha256: "batchline/owl (1).png"}
    prompt = prompt_for(api, params, "b", "p", names)
    assert [prompt[n]["inputs"]["image"] for n in "456"] == [
        "batchline/fox.png",
        "batchline/fox.png",
        "batchline/owl (1).png",
    ]
    with pytest.raises(CompositionError, match=r"input 6\.image: the picture b\.png is not on"):
        prompt_for(api, params, "b", "p", {fox.sha256: "batchline/fox.png"})

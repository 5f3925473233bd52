"""The 45 golden pairs: our editor-to-API conversion against ComfyUI's own frontend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.errors import PresetError
from core.presets import convert_editor

PAIRS = sorted((Path(__file__).parents[2] / "data" / "golden-pairs").glob("*.json"))

# LoadImage's `image` input has `image_upload: true` in the catalogue: the editor draws an
# upload button next to it, and frontends of that time serialised the button's value
# ("image") into the prompt as an extra input. The server ignores it; it is no input of
# LoadImage in /object_info, so we do not emit it.
UPLOAD = "LoadImage upload button (image_upload widget), not an input in /object_info"

# Per pair, per node and input: inputs the frontend emitted that the catalogue explains.
EXPECTED_DIFFERENCES: dict[str, dict[tuple[str, str], str]] = {
    "controlnet_controlnet_example.json": {("11", "choose file to upload"): UPLOAD},
    "controlnet_depth_t2i_adapter.json": {("20", "choose file to upload"): UPLOAD},
    "flux_flux_controlnet_example.json": {("17", "upload"): UPLOAD},
    "flux_flux_fill_inpaint_example.json": {("17", "upload"): UPLOAD},
    "flux_flux_redux_model_example.json": {("40", "upload"): UPLOAD},
    "img2img_img2img_workflow.json": {("10", "choose file to upload"): UPLOAD},
    "inpaint_inpain_model_outpainting.json": {("20", "choose file to upload"): UPLOAD},
    "inpaint_inpaint_anythingv3_woman.json": {("20", "choose file to upload"): UPLOAD},
    "inpaint_yosemite_outpaint_example.json": {("20", "choose file to upload"): UPLOAD},
    "model_merging_model_merging_inpaint.json": {("19", "choose file to upload"): UPLOAD},
    "sd3_sd3.5_large_canny_controlnet_example.json": {("45", "upload"): UPLOAD},
    "sd3_sd3_controlnet_example.json": {("45", "upload"): UPLOAD},
    "sdxl_sdxl_revision_zero_positive.json": {
        ("34", "choose file to upload"): UPLOAD,
        ("38", "choose file to upload"): UPLOAD,
    },
    "stable_cascade_stable_cascade__canny_controlnet.json": {("50", "upload"): UPLOAD},
    "stable_cascade_stable_cascade__image_remixing_multiple.json": {
        ("48", "upload"): UPLOAD,
        ("52", "upload"): UPLOAD,
    },
    "stable_cascade_stable_cascade__inpaint_controlnet.json": {("50", "upload"): UPLOAD},
    "unclip_unclip_example.json": {("34", "choose file to upload"): UPLOAD},
}

# A required widget the node gained after the workflow was saved: the frontend of that time
# left it out of the prompt (today's server refuses that prompt), today's frontend gives the
# widget its default, and so do we. Per pair, per node and input: the default we emit where
# the frontend emitted nothing.
FILLED_DEFAULTS: dict[str, dict[tuple[str, str], Any]] = {
    "flux_flux_redux_model_example.json": {
        ("39", "crop"): "center",
        ("41", "strength"): 1.0,
        ("41", "strength_type"): "multiply",
    },
    "inpaint_inpaint_anythingv3_woman.json": {("26", "grow_mask_by"): 6},
    "omnigen_omnigen2_example.json": {("27", "style"): "regular"},
    "sdxl_sdxl_revision_zero_positive.json": {("13", "crop"): "center", ("36", "crop"): "center"},
    "stable_cascade_stable_cascade__image_remixing_multiple.json": {
        ("50", "crop"): "center",
        ("54", "crop"): "center",
    },
    "unclip_unclip_example.json": {("13", "crop"): "center"},
}

# Group node 68 (`workflow/StableCascadeInpaintCnet`) expands to its inner nodes, which we
# number `68:<index>`. The frontend that made this prompt numbered them with the ids the
# nodes had before they were grouped, which the saved workflow does not record. Same nodes,
# same inputs, other names: this map renames ours to theirs before comparing.
RENUMBERED: dict[str, dict[str, str]] = {
    "stable_cascade_stable_cascade__inpaint_controlnet.json": {
        "68:0": "62",
        "68:1": "66",
        "68:2": "64",
        "68:3": "61",
        "68:5": "60",
    },
}

# Flux 2 nodes are newer than ComfyUI 0.3.64: conversion must fail and name them.
UNKNOWN_TYPES = {"flux2_flux2_example.json": ("EmptyFlux2LatentImage", "Flux2Scheduler")}


def _renumber(api: dict[str, Any], ids: dict[str, str]) -> dict[str, Any]:
    def rename(value: Any) -> Any:
        if isinstance(value, list) and len(value) == 2 and value[0] in ids:
            return [ids[value[0]], value[1]]
        return value

    return {
        ids.get(node_id, node_id): {
            "class_type": node["class_type"],
            "inputs": {k: rename(v) for k, v in node["inputs"].items()},
        }
        for node_id, node in api.items()
    }


def test_all_pairs_are_present() -> None:
    assert len(PAIRS) == 45


@pytest.mark.parametrize("path", PAIRS, ids=[p.stem for p in PAIRS])
def test_pair_converts_like_the_frontend(path: Path) -> None:
    pair = json.loads(path.read_text("utf-8"))
    if path.name in UNKNOWN_TYPES:
        with pytest.raises(PresetError) as info:
            convert_editor(pair["workflow"])
        for name in UNKNOWN_TYPES[path.name]:
            assert name in str(info.value)
        return
    ours = _renumber(convert_editor(pair["workflow"]).api_workflow, RENUMBERED.get(path.name, {}))
    theirs = pair["prompt"]
    assert sorted(ours) == sorted(theirs)
    allowed = EXPECTED_DIFFERENCES.get(path.name, {})
    filled = FILLED_DEFAULTS.get(path.name, {})
    seen = set()
    for node_id, want in theirs.items():
        got = ours[node_id]
        assert got["class_type"] == want["class_type"], node_id
        for name in set(got["inputs"]) | set(want["inputs"]):
            if (node_id, name) in allowed:
                seen.add((node_id, name))
                assert name not in got["inputs"]
                continue
            if (node_id, name) in filled:
                seen.add((node_id, name))
                assert name not in want["inputs"]
                assert got["inputs"][name] == filled[(node_id, name)]
                continue
            assert got["inputs"].get(name, "<missing>") == want["inputs"].get(name, "<missing>"), (
                f"node {node_id} input {name}"
            )
    assert seen == set(allowed) | set(filled), (
        "an expected difference did not occur: remove it from the list"
    )

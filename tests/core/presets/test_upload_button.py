"""Tests for core.presets.upload_button: the frontend's upload button is never a parameter."""

from __future__ import annotations

import json

from core.catalogue import Catalogue
from core.presets.parameters import list_parameters
from core.presets.upload_button import is_upload_button
from tests.conftest import DATA


def test_a_real_input_named_upload_is_kept() -> None:
    raw = {
        "Uploader": {
            "input": {
                "required": {
                    "image": [["a.png"], {"image_upload": True}],
                    "upload": ["STRING", {}],
                }
            }
        },
        "LoadImage": {"input": {"required": {"image": [["a.png"], {"image_upload": True}]}}},
    }
    catalogue = Catalogue.from_object_info(raw)
    assert not is_upload_button("Uploader", "upload", catalogue)
    assert is_upload_button("LoadImage", "upload", catalogue)
    assert is_upload_button("Unknown", "choose file to upload", catalogue)
    assert not is_upload_button("LoadImage", "image", catalogue)


def test_the_frontends_img2img_prompt_lists_its_picture_but_not_the_button() -> None:
    pair = json.loads((DATA / "golden-pairs" / "img2img_img2img_workflow.json").read_text())
    listed = {str(p.ref) for p in list_parameters(pair["prompt"], Catalogue.bundled())}
    assert "10.image" in listed
    assert "10.choose file to upload" not in listed

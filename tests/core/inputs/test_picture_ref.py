"""A picture as a job value: its stem, the name it is uploaded under, and its stored JSON
read back; anything else is not a picture."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.inputs.picture_ref import (
    PICTURE_KEY,
    PictureRef,
    picture_label,
    picture_params,
)

SHA = "ab" * 32
REF = PictureRef(SHA, "render_003.PNG", "/home/ann/renders/render_003.PNG", 1234)


def test_its_stem_and_server_name_come_from_the_file_and_the_hash() -> None:
    assert REF.stem == "render_003"
    assert REF.server_name == f"{SHA[:32]}.png"  # the suffix lower-cased


@pytest.mark.parametrize(
    ("file", "suffix"), [("scan", ".png"), ("a.b c", ".png"), ("x.JPEG", ".jpeg")]
)
def test_a_file_without_a_plain_suffix_is_uploaded_as_png(file: str, suffix: str) -> None:
    assert PictureRef(SHA, file, "/x", 1).server_name == SHA[:32] + suffix


def test_the_param_survives_the_ledgers_json_and_reads_back_equal() -> None:
    stored = json.loads(json.dumps(REF.to_param()))
    assert set(stored) == {PICTURE_KEY}
    assert PictureRef.from_param(stored) == REF


@pytest.mark.parametrize(
    "value",
    [
        "example.png",
        12,
        None,
        {"picture": "render.png"},
        {"picture": {"sha256": SHA, "file": "a.png", "source": "/a.png"}},  # no size
        {"picture": {"sha256": "xyz", "file": "a.png", "source": "/a.png", "size": 1}},
        {"picture": {"sha256": SHA, "file": "", "source": "/a.png", "size": 1}},
        {"picture": {"sha256": SHA, "file": "a.png", "source": "/a.png", "size": True}},
        {"picture": {"sha256": SHA, "file": "a.png", "source": "/a.png", "size": -1}},
        {**REF.to_param(), "other": 1},
    ],
)
def test_anything_else_is_not_a_picture(value: Any) -> None:
    assert PictureRef.from_param(value) is None
    assert picture_label(value) is None


def test_picture_params_picks_the_pictures_of_a_jobs_values() -> None:
    other = PictureRef("cd" * 32, "mask.png", "/m/mask.png", 9)
    params = {"7.seed": 3, "9.image": other.to_param(), "2.image": REF.to_param(), "4.t": "x"}
    assert picture_params(params) == {"2.image": REF, "9.image": other}
    assert picture_label(params["2.image"]) == "render_003"

"""Tests for core.batch.values: an override's text turned into the input's type and checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.batch import (
    BatchSpec,
    GridAxis,
    SeedMode,
    SeedPlan,
    compose,
)
from core.errors import CompositionError
from core.presets import Preset, load_preset


def test_overrides_are_parsed_and_checked(one_seed: Preset) -> None:
    spec = BatchSpec(SeedPlan(count=2), overrides=("3.steps=30", "3.cfg=4.5", "6.text=a cat"))
    jobs = compose(one_seed, spec)
    assert jobs[0].params == {"3.steps": 30, "3.cfg": 4.5, "6.text": "a cat", "10.value": 0}
    mapping = compose(one_seed, BatchSpec(overrides={"3.sampler_name": "heun"}))
    assert mapping[0].params["3.sampler_name"] == "heun"


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("3.steps=abc", r"node 3, input 'steps': 'abc' is not an integer"),
        ("3.steps=0", r"node 3, input 'steps': 0 is outside 1..10000"),
        ("3.sampler_name=nope", r"node 3, input 'sampler_name': 'nope' is not one of"),
        ("3.cfg=inf", "not a finite number"),
        ("99.steps=1", "node 99 is not in the workflow"),
        ("3.nope=1", "node 3 has no input 'nope'"),
        ("3.model=1", "fed by a link"),
        ("steps=3", "not of the form NODE_ID.INPUT=value"),
        ("3.steps", "not of the form"),
    ],
)
def test_bad_overrides(one_seed: Preset, override: str, message: str) -> None:
    with pytest.raises(CompositionError, match=message):
        compose(one_seed, BatchSpec(overrides=(override,)))


def test_override_of_unknown_node_uses_the_literal_type() -> None:
    api = {"1": {"class_type": "Custom", "inputs": {"flag": True, "seed": 1}}}
    from core.presets import preset_from_api

    custom = preset_from_api(api, Path("custom.json"))
    jobs = compose(custom, BatchSpec(overrides=("1.flag=no",)))
    assert jobs[0].params["1.flag"] is False


def test_a_colour_input_takes_hex_as_the_composer_shows_it() -> None:
    png = load_preset(Path(__file__).parents[2] / "data" / "comfyui-output-with-workflow.png")
    keep = SeedPlan(SeedMode.keep)
    jobs = compose(png, BatchSpec(keep, overrides=("1.color=#FF8000",)))
    assert jobs[0].params["1.color"] == 0xFF8000
    grid = compose(png, BatchSpec(keep, grid=(GridAxis("1.color", ("#000000", 255)),)))
    assert [job.params["1.color"] for job in grid] == [0, 255]
    with pytest.raises(CompositionError, match=r"input 'color': '#GG0000' is not a colour"):
        compose(png, BatchSpec(keep, overrides=("1.color=#GG0000",)))
    with pytest.raises(CompositionError, match=r"input 'width': '#40' is not an integer"):
        compose(png, BatchSpec(keep, overrides=("1.width=#40",)))


# LoadImage -> ImageAddNoise(seed) -> SaveImage: image-to-image without models.
PICTURE_API = {
    "1": {"class_type": "LoadImage", "inputs": {"image": "example.png"}},
    "2": {"class_type": "ImageAddNoise", "inputs": {"image": ["1", 0], "seed": 1, "strength": 0.5}},
    "3": {"class_type": "SaveImage", "inputs": {"images": ["2", 0], "filename_prefix": "p"}},
}


def test_a_picture_goes_to_an_input_that_takes_an_upload_only() -> None:
    """Not one of the server's listed files, so not bound by its choices; a picture on any
    other input is refused naming the node and the input."""
    from core.inputs import PictureRef
    from core.presets import preset_from_api

    preset = preset_from_api(PICTURE_API, Path("img2img.json"))
    refs = [PictureRef(f"{i:x}" * 64, f"render{i}.png", f"/r/render{i}.png", 10) for i in (1, 2)]
    keep = SeedPlan(SeedMode.keep)
    jobs = compose(
        preset, BatchSpec(keep, grid=(GridAxis("1.image", tuple(r.to_param() for r in refs)),))
    )
    assert [PictureRef.from_param(job.params["1.image"]) for job in jobs] == refs
    one = compose(preset, BatchSpec(keep, overrides={"1.image": refs[0].to_param()}))
    assert one[0].params["1.image"] == refs[0].to_param()
    with pytest.raises(
        CompositionError,
        match=r"^node 3, input 'filename_prefix' does not take a picture file "
        r"\(given render1\.png\)$",
    ):
        compose(preset, BatchSpec(keep, overrides={"3.filename_prefix": refs[0].to_param()}))
    with pytest.raises(CompositionError, match=r"node 2, input 'strength' does not take a picture"):
        compose(preset, BatchSpec(keep, overrides={"2.strength": refs[1].to_param()}))


def test_a_picture_input_takes_a_file_name_the_bundled_list_lacks() -> None:
    """LoadImage's list is the input folder of the server it was read from (the bundled
    catalogue's: the recording machine's, example.png alone): another server's file, picked
    from that server's own list, is composed, and left to that server to check; any other
    list still bounds its input."""
    from core.presets import preset_from_api

    preset = preset_from_api(PICTURE_API, Path("img2img.json"))
    keep = SeedPlan(SeedMode.keep)
    jobs = compose(preset, BatchSpec(keep, overrides={"1.image": "cat.png"}))
    assert jobs[0].params["1.image"] == "cat.png"
    with pytest.raises(CompositionError, match=r"'nope' is not one of the allowed choices"):
        compose(preset_from_api(PICTURE_API | SAMPLER, Path("s.json")), sampler("nope"))


SAMPLER = {"4": {"class_type": "KSamplerSelect", "inputs": {"sampler_name": "euler"}}}


def sampler(name: str) -> BatchSpec:
    return BatchSpec(SeedPlan(SeedMode.keep), overrides={"4.sampler_name": name})

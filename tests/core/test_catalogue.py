"""Tests for core.catalogue: parsing `/object_info` into typed node classes."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from core.catalogue import Catalogue, InputSpec, NodeClass


@pytest.fixture(scope="module")
def bundled() -> Catalogue:
    return Catalogue.bundled()


def test_bundled_has_every_class_and_is_cached(bundled: Catalogue) -> None:
    assert len(bundled) == 478
    assert "KSampler" in bundled
    assert "PrimitiveNode" not in bundled
    assert Catalogue.bundled() is bundled
    assert "0.3.64" in bundled.version


def test_ksampler_inputs_follow_input_order(bundled: Catalogue) -> None:
    node = bundled.get("KSampler")
    assert node is not None
    names = [spec.name for spec in node.inputs]
    assert names[:4] == ["model", "seed", "steps", "cfg"]
    assert [w.name for w in node.widgets] == [
        "seed",
        "steps",
        "cfg",
        "sampler_name",
        "scheduler",
        "denoise",
    ]
    assert node.outputs == ("LATENT",)
    assert node.display_name == "KSampler"


def test_seed_spec(bundled: Catalogue) -> None:
    seed = bundled.get("KSampler").input("seed")  # type: ignore[union-attr]
    assert seed is not None
    assert seed.type == "INT"
    assert seed.has_control_after_generate
    assert seed.minimum == 0
    assert seed.maximum == 0xFFFFFFFFFFFFFFFF
    assert isinstance(seed.maximum, int)
    assert seed.required
    assert seed.is_widget


def test_legacy_combo_choices(bundled: Catalogue) -> None:
    sampler = bundled.get("KSampler").input("sampler_name")  # type: ignore[union-attr]
    assert sampler is not None
    assert sampler.is_combo
    assert sampler.is_widget
    assert "euler" in sampler.choices


def test_new_combo_form(bundled: Catalogue) -> None:
    spec = bundled.get("LatentBatchSeedBehavior").input("seed_behavior")  # type: ignore[union-attr]
    assert spec is not None
    assert spec.type == "COMBO"
    assert spec.choices == ("random", "fixed")
    assert spec.default == "fixed"


def test_link_inputs_are_not_widgets(bundled: Catalogue) -> None:
    node = bundled.get("KSampler")
    assert node is not None
    model = node.input("model")
    assert model is not None
    assert model.type == "MODEL"
    assert not model.is_widget
    assert node.input("nope") is None


def test_hidden_and_output_node(bundled: Catalogue) -> None:
    node = bundled.get("SaveImage")
    assert node is not None
    assert node.hidden == ("prompt", "extra_pnginfo")
    assert node.output_node


def test_optional_inputs_follow_required() -> None:
    raw = {
        "X": {
            "input": {
                "optional": {"b": ["INT", {"default": 1}]},
                "required": {"a": ["FLOAT", {}], "c": ["STRING", {"forceInput": True}]},
            },
            "input_order": {"required": ["c", "a"], "optional": ["b"]},
            "output": ["IMAGE"],
        },
        "broken": "not a mapping",
    }
    cat = Catalogue.from_object_info(raw, source="test")
    node = cat.get("X")
    assert node is not None
    assert [(s.name, s.required) for s in node.inputs] == [
        ("c", True),
        ("a", True),
        ("b", False),
    ]
    assert not node.input("c").is_widget  # type: ignore[union-attr]
    assert "broken" not in cat
    assert cat.version == "test"
    assert list(cat) == ["X"]


def test_specs_are_immutable() -> None:
    spec = InputSpec.parse("w", ["INT", {"min": 8}], required=True)
    assert isinstance(spec.options, MappingProxyType)
    with pytest.raises(TypeError):
        spec.options["min"] = 1  # type: ignore[index]
    assert spec.minimum == 8
    assert spec.maximum is None


def test_parse_tolerates_odd_entries() -> None:
    assert InputSpec.parse("x", [], required=False).type == "*"
    assert InputSpec.parse("x", "IMAGE", required=True).type == "IMAGE"
    node = NodeClass.parse("Y", {})
    assert node.inputs == ()
    assert node.display_name == "Y"


def test_picture_inputs_are_those_that_take_an_upload(bundled: Catalogue) -> None:
    """LoadImage's and LoadImageMask's ``image`` (``image_upload``), not LoadImageOutput's
    (it picks from the output folder) nor an unknown class's or a plain input."""
    workflow = {
        "1": {"class_type": "LoadImage", "inputs": {"image": "example.png"}},
        "2": {"class_type": "LoadImageMask", "inputs": {"image": "m.png", "channel": "alpha"}},
        "3": {"class_type": "LoadImageOutput", "inputs": {"image": "ComfyUI_00001_.png [output]"}},
        "4": {"class_type": "KSampler", "inputs": {"seed": 1}},
        "5": {"class_type": "NoSuchNode", "inputs": {"image": "x.png"}},
        "6": "not a node",
    }
    assert bundled.picture_inputs(workflow) == {"1.image": "LoadImage", "2.image": "LoadImageMask"}
    spec = bundled.get("LoadImage")
    assert spec is not None
    image = spec.input("image")
    assert image is not None
    assert image.takes_upload
    assert image.is_combo  # a free name on the server: Batchline puts the uploaded one there

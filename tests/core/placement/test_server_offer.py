"""What a server can run, from its /object_info and /models answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.catalogue import Catalogue
from core.placement.model_inputs import ModelInput
from core.placement.server_offer import (
    ModelList,
    listed_names,
    offer_from_object_info,
)

DATA = Path(__file__).parent / "data"
CKPT = ModelInput("CheckpointLoaderSimple", "ckpt_name")
LORA = ModelInput("LoraLoader", "lora_name")
VAE = ModelInput("VAELoader", "vae_name")


def recorded_object_info() -> dict[str, Any]:
    """A real ComfyUI's answer for four node classes, with the tiny models installed."""
    recording = json.loads((DATA / "object_info_models.json").read_text("utf-8"))
    body: dict[str, Any] = recording["response"]["body"]
    return body


def node(**inputs: Any) -> dict[str, Any]:
    return {"input": {"required": inputs}, "output": ["MODEL"]}


def test_a_real_servers_model_lists_are_read_by_input() -> None:
    offer = offer_from_object_info(recorded_object_info())
    assert offer.node_classes == {
        "LoadImage",
        "LoadImageMask",
        "CheckpointLoaderSimple",
        "LoraLoader",
    }
    assert offer.model_inputs[CKPT].folder == "checkpoints"
    assert "tiny-sd15-a.safetensors" in (offer.files_of(CKPT) or ())
    assert offer.files_of(LORA) == {"epiNoiseoffset_v2.safetensors", "tiny-lora-sd15.safetensors"}
    assert offer.folders == {"checkpoints", "loras"}
    # LoadImage lists input files (its choices are pictures, not models).
    assert offer.files_of(ModelInput("LoadImage", "image")) is None


def test_a_catalogue_and_its_json_give_the_same_offer() -> None:
    raw = recorded_object_info()
    assert offer_from_object_info(Catalogue.from_object_info(raw)) == offer_from_object_info(raw)


def test_the_stock_catalogue_offers_every_class_and_empty_model_lists() -> None:
    catalogue = Catalogue.bundled()
    offer = offer_from_object_info(catalogue)
    assert offer.node_classes == frozenset(catalogue)
    assert offer.files_of(CKPT) == frozenset()
    assert offer.files_of(VAE) == {"pixel_space"}
    assert offer.folder_files("vae") == frozenset()
    assert offer.files_of(ModelInput("KSampler", "sampler_name")) is None


def test_a_custom_nodes_combo_of_model_files_is_a_model_input_of_unknown_folder() -> None:
    offer = offer_from_object_info(
        {
            "UnetLoaderGGUF": node(unet_name=[["flux1-dev-Q4.gguf", "sub/wan-Q8.GGUF"]]),
            "Picker": node(mode=[["fast", "model.safetensors"]]),
            "EmptyLister": node(name=[[]]),
            "NewStyle": node(ckpt=["COMBO", {"options": ["x.ckpt"]}]),
        }
    )
    gguf = ModelInput("UnetLoaderGGUF", "unet_name")
    assert offer.model_inputs[gguf] == ModelList(
        None, frozenset({"flux1-dev-Q4.gguf", "sub/wan-Q8.GGUF"})
    )
    assert offer.files_of(ModelInput("NewStyle", "ckpt")) == {"x.ckpt"}
    assert offer.files_of(ModelInput("Picker", "mode")) is None
    assert offer.files_of(ModelInput("EmptyLister", "name")) is None
    assert offer.folders == frozenset()


def test_a_models_folder_answer_relists_that_folders_inputs_only() -> None:
    offer = offer_from_object_info(
        {
            "CheckpointLoaderSimple": node(ckpt_name=[["old.safetensors"]]),
            "ImageOnlyCheckpointLoader": node(ckpt_name=[["old.safetensors"]]),
            "VAELoader": node(vae_name=[["ae.safetensors", "taesd", "pixel_space"]]),
            "LoraLoader": node(lora_name=[["l.safetensors"]]),
        }
    )
    relisted = offer.with_folder("checkpoints", ["new.safetensors"]).with_folder(
        "vae", ["vae2.safetensors"]
    )
    assert relisted.files_of(CKPT) == {"new.safetensors"}
    assert relisted.files_of(ModelInput("ImageOnlyCheckpointLoader", "ckpt_name")) == {
        "new.safetensors"
    }
    assert relisted.files_of(VAE) == {"vae2.safetensors", "taesd", "pixel_space"}
    assert relisted.files_of(LORA) == {"l.safetensors"}
    assert relisted.folder_files("vae") == {"vae2.safetensors"}
    assert offer.files_of(CKPT) == {"old.safetensors"}  # the offer itself is unchanged


def test_models_answers_keep_only_names() -> None:
    assert listed_names(["checkpoints", "loras", 3, "", None]) == {"checkpoints", "loras"}
    assert listed_names({"checkpoints": []}) == frozenset()
    assert listed_names(["a.safetensors", "sub/b.ckpt"]) == {"a.safetensors", "sub/b.ckpt"}
    assert listed_names(None) == frozenset()


def test_a_listing_gives_each_folders_files_and_custom_inputs_apart() -> None:
    offer = offer_from_object_info(
        recorded_object_info()
        | {
            "VAELoader": node(vae_name=[["pixel_space", "ae.safetensors"]]),
            "UnetLoaderGGUF": node(unet_name=[["b.gguf", "a.gguf"]]),
        }
    )
    listing = offer.listing()
    assert list(listing) == ["checkpoints", "loras", "vae", "UnetLoaderGGUF.unet_name"]
    assert listing["vae"] == ["ae.safetensors"]
    assert listing["UnetLoaderGGUF.unet_name"] == ["a.gguf", "b.gguf"]
    assert listing["checkpoints"] == sorted(offer.files_of(CKPT) or ())

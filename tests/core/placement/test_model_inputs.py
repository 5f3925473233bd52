"""The table of ComfyUI's own model inputs, checked against the catalogue of a real 0.3.64."""

from __future__ import annotations

import pytest

from core.catalogue import Catalogue
from core.placement.model_inputs import KNOWN_INPUTS, ModelInput, is_model_file, known_folder

# In the table from ComfyUI's code, but newer than the 0.3.64 catalogue.
NEWER_THAN_0_3_64 = {ModelInput("AudioEncoderLoader", "audio_encoder_name")}

# Empty combos of the stock catalogue that list no model folder: input, output or 3D files,
# and the API nodes' uploads.
NOT_MODEL_FOLDERS = {
    ModelInput("LoadImageOutput", "image"),
    ModelInput("LoadLatent", "latent"),
    ModelInput("LoadVideo", "file"),
    ModelInput("Load3D", "model_file"),
    ModelInput("Load3DAnimation", "model_file"),
    ModelInput("GeminiInputFiles", "file"),
    ModelInput("OpenAIInputFiles", "file"),
}


def test_every_input_of_the_table_is_a_combo_of_the_real_catalogue() -> None:
    catalogue = Catalogue.bundled()
    found = set()
    for key in KNOWN_INPUTS:
        node = catalogue.get(key.class_type)
        spec = node.input(key.input) if node is not None else None
        if spec is not None:
            assert spec.is_combo, key
            found.add(key)
    assert set(KNOWN_INPUTS) - found == NEWER_THAN_0_3_64


def test_the_table_names_every_empty_combo_of_a_server_without_models() -> None:
    """The real server had no model files: its model inputs are exactly its empty combos."""
    catalogue = Catalogue.bundled()
    empty = {
        ModelInput(name, spec.name)
        for name in catalogue
        for spec in catalogue.get(name).inputs  # type: ignore[union-attr]
        if spec.is_combo and not spec.choices
    }
    assert empty - NOT_MODEL_FOLDERS == set(KNOWN_INPUTS) - NEWER_THAN_0_3_64 - {
        ModelInput("CheckpointLoader", "config_name"),  # lists ComfyUI's bundled yaml files
        ModelInput("VAELoader", "vae_name"),  # lists pixel_space
    }


def test_folders_are_comfyuis_names() -> None:
    assert known_folder(ModelInput("CheckpointLoaderSimple", "ckpt_name")) == "checkpoints"
    assert known_folder(ModelInput("UNETLoader", "unet_name")) == "diffusion_models"
    assert known_folder(ModelInput("DualCLIPLoader", "clip_name2")) == "text_encoders"
    assert known_folder(ModelInput("KSampler", "sampler_name")) is None
    assert str(ModelInput("LoraLoader", "lora_name")) == "LoraLoader.lora_name"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("sd_xl_base_1.0.safetensors", True),
        ("SDXL/juggernaut.SafeTensors", True),
        ("flux1-dev-Q4_K_S.gguf", True),
        ("4x_NMKD.pth", True),
        ("model.sft", True),
        ("euler", False),
        ("a.safetensors.txt", False),
        ("", False),
        (7, False),
        (None, False),
    ],
)
def test_a_model_file_is_named_by_its_extension(value: object, expected: bool) -> None:
    assert is_model_file(value) is expected

"""Which node inputs name a file in a ComfyUI model folder: a table for ComfyUI's own nodes,
and a rule for custom nodes (their values end in a model file's extension).

The table is read from ComfyUI 0.3.64's code: every combo built from
`folder_paths.get_filename_list(<folder>)` in `nodes.py` and `comfy_extras/`. Folders are
ComfyUI's own names (`folder_paths.folder_names_and_paths`), as `/models/<folder>` takes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

# folder_paths.supported_pt_extensions, plus .gguf (the GGUF custom loaders' files).
MODEL_EXTENSIONS: Final = (
    ".safetensors",
    ".ckpt",
    ".pt",
    ".pt2",
    ".pth",
    ".bin",
    ".pkl",
    ".sft",
    ".gguf",
)

# The folders whose file is the job's main model: the one ComfyUI keeps loaded between jobs
# and that costs a load (and the prompts' re-encoding) to switch.
MAIN_MODEL_FOLDERS: Final = frozenset({"checkpoints", "diffusion_models"})


@dataclass(frozen=True, order=True)
class ModelInput:
    """One input of one node class, such as `CheckpointLoaderSimple.ckpt_name`."""

    class_type: str
    input: str

    def __str__(self) -> str:
        return f"{self.class_type}.{self.input}"


def _inputs(folder: str, *pairs: str) -> dict[ModelInput, str]:
    """`"Class.input"` pairs, each naming a file of `folder`."""
    return {ModelInput(*pair.split(".")): folder for pair in pairs}


KNOWN_INPUTS: Final = MappingProxyType(
    _inputs(
        "checkpoints",
        "CheckpointLoaderSimple.ckpt_name",
        "CheckpointLoader.ckpt_name",
        "unCLIPCheckpointLoader.ckpt_name",
        "ImageOnlyCheckpointLoader.ckpt_name",
        "CreateHookModelAsLora.ckpt_name",
        "CreateHookModelAsLoraModelOnly.ckpt_name",
    )
    | _inputs("configs", "CheckpointLoader.config_name")
    | _inputs("diffusion_models", "UNETLoader.unet_name")
    | _inputs(
        "loras",
        "LoraLoader.lora_name",
        "LoraLoaderModelOnly.lora_name",
        "CreateHookLora.lora_name",
        "CreateHookLoraModelOnly.lora_name",
    )
    | _inputs("vae", "VAELoader.vae_name")
    | _inputs(
        "text_encoders",
        "CLIPLoader.clip_name",
        "DualCLIPLoader.clip_name1",
        "DualCLIPLoader.clip_name2",
        "TripleCLIPLoader.clip_name1",
        "TripleCLIPLoader.clip_name2",
        "TripleCLIPLoader.clip_name3",
        "QuadrupleCLIPLoader.clip_name1",
        "QuadrupleCLIPLoader.clip_name2",
        "QuadrupleCLIPLoader.clip_name3",
        "QuadrupleCLIPLoader.clip_name4",
    )
    | _inputs("clip_vision", "CLIPVisionLoader.clip_name")
    | _inputs(
        "controlnet", "ControlNetLoader.control_net_name", "DiffControlNetLoader.control_net_name"
    )
    | _inputs("style_models", "StyleModelLoader.style_model_name")
    | _inputs("gligen", "GLIGENLoader.gligen_name")
    | _inputs("upscale_models", "UpscaleModelLoader.model_name")
    | _inputs("hypernetworks", "HypernetworkLoader.hypernetwork_name")
    | _inputs("photomaker", "PhotoMakerLoader.photomaker_model_name")
    | _inputs("model_patches", "ModelPatchLoader.name")
    | _inputs("audio_encoders", "AudioEncoderLoader.audio_encoder_name")
    | _inputs("diffusers", "DiffusersLoader.model_path")
)


def is_model_file(value: object) -> bool:
    """True for a string that ends in a model file's extension (`x.safetensors`, `y.GGUF`)."""
    return isinstance(value, str) and value.lower().endswith(MODEL_EXTENSIONS)


def known_folder(model_input: ModelInput) -> str | None:
    """The folder of one of ComfyUI's own model inputs, or None for any other input."""
    return KNOWN_INPUTS.get(model_input)

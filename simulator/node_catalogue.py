"""The simulator's node catalogue: ComfyUI 0.3.64's object_info with a few model files added."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from core.catalogue import Catalogue

OBJECT_INFO_RESOURCE = "object_info-0.3.64.json"

# Model folders of a typical installation, by the input names that list them.
MODEL_FILES: dict[str, tuple[str, ...]] = {
    "ckpt_name": (
        "sd_xl_base_1.0.safetensors",
        "v1-5-pruned-emaonly.safetensors",
        "sd_xl_refiner_1.0.safetensors",
    ),
    "vae_name": ("sdxl_vae.safetensors", "vae-ft-mse-840000-ema-pruned.safetensors"),
    "lora_name": ("add_detail.safetensors", "pixel-art-xl.safetensors"),
    "clip_name": ("clip_l.safetensors", "t5xxl_fp8_e4m3fn.safetensors"),
    "clip_name1": ("clip_l.safetensors", "t5xxl_fp8_e4m3fn.safetensors"),
    "clip_name2": ("clip_l.safetensors", "t5xxl_fp8_e4m3fn.safetensors"),
    "unet_name": ("flux1-dev.safetensors", "flux1-schnell.safetensors"),
    "control_net_name": ("control_v11p_sd15_canny.pth", "controlnet-canny-sdxl-1.0.safetensors"),
    "model_name": ("RealESRGAN_x4plus.pth", "4x-UltraSharp.pth"),
}

# Classes whose `model_name` lists upscale models (other classes use the name for other things).
UPSCALE_CLASSES = frozenset({"UpscaleModelLoader"})


@cache
def _bundled() -> dict[str, Any]:
    text = (resources.files("core") / "data" / OBJECT_INFO_RESOURCE).read_text("utf-8")
    info: dict[str, Any] = json.loads(text)
    for class_type, node in info.items():
        _add_model_files(class_type, node)
    return info


def simulated_object_info() -> dict[str, Any]:
    """The catalogue the simulator serves and validates against (shared: never mutate it)."""
    return _bundled()


@cache
def simulated_catalogue() -> Catalogue:
    """The typed view of `simulated_object_info`."""
    return Catalogue.from_object_info(_bundled(), source="Batchline simulator")


def _add_model_files(class_type: str, node: dict[str, Any]) -> None:
    for section in ("required", "optional"):
        for name, spec in (node.get("input", {}).get(section) or {}).items():
            if name == "model_name" and class_type not in UPSCALE_CLASSES:
                continue
            files = MODEL_FILES.get(name)
            if files is not None:
                _extend_choices(spec, files)


def _extend_choices(spec: list[Any], files: tuple[str, ...]) -> None:
    if isinstance(spec[0], list):
        spec[0].extend(f for f in files if f not in spec[0])
    elif spec[0] == "COMBO" and len(spec) > 1 and isinstance(spec[1].get("options"), list):
        options = spec[1]["options"]
        options.extend(f for f in files if f not in options)

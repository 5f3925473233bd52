"""What each node does when the simulator runs it (real Pillow work or a simulated stand-in),
and the simulator's node catalogue: ComfyUI 0.3.64's object_info with a few model files added."""

from __future__ import annotations

import io
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageFilter, ImageOps

from core.catalogue import Catalogue
from simulator.images import (
    Latent,
    OutsideOutputFolder,
    SimImage,
    frame_size,
    pnginfo,
    save_images,
    solid,
    synthetic,
    temp_prefix,
)
from simulator.input_folder import resolve

if TYPE_CHECKING:
    import random


class NodeFailure(Exception):
    """A node raised while executing; carries the type name ComfyUI would report."""

    def __init__(
        self, exception_type: str, message: str, traceback: list[str], tips: str = ""
    ) -> None:
        super().__init__(message)
        self.exception_type = exception_type
        self.message = message
        self.traceback = traceback
        self.tips = tips


@dataclass
class NodeEnv:
    """What a node may touch: folders, the prompt for PNG text, the RAM budget, randomness."""

    output_dir: Path
    temp_dir: Path
    input_dir: Path
    prompt: dict[str, Any]
    extra_pnginfo: dict[str, Any] | None
    ram_bytes: int
    rng: random.Random


NodeOutput = tuple[tuple[Any, ...], dict[str, Any] | None]
RealNode = Callable[[dict[str, Any], NodeEnv], NodeOutput]


def _empty_image(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    width, height, batch = inputs["width"], inputs["height"], inputs["batch_size"]
    wanted = 4 * batch * height * width  # torch.full([batch, height, width, 1]) in float32
    if wanted > env.ram_bytes:
        raise NodeFailure("RuntimeError", cpu_alloc_message(wanted), _tb("nodes.py", "generate"))
    return (solid(width, height, batch, inputs["color"]),), None


def cpu_alloc_message(size: int) -> str:
    """PyTorch's CPU allocation failure, as the recording of ComfyUI on CPU shows it."""
    return (
        "[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate "
        f"memory: you tried to allocate {size} bytes. Error code 12 (Cannot allocate memory)"
    )


def _map_frames(image: SimImage, change: Callable[[Image.Image], Image.Image]) -> SimImage:
    frames = [change(f) for f in image.frames]
    return SimImage(image.width, image.height, frames, image.seed, image.look)


def _blur(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    image: SimImage = inputs["image"]
    radius = min(float(inputs["sigma"]), float(inputs["blur_radius"]))
    return (_map_frames(image, lambda f: f.filter(ImageFilter.GaussianBlur(radius))),), None


def _invert(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    return (_map_frames(inputs["image"], ImageOps.invert),), None


def _scaled(image: SimImage, width: int, height: int) -> SimImage:
    width, height = width or image.width, height or image.height
    size = frame_size(width, height, image.batch)
    frames = [f.resize(size, Image.Resampling.BICUBIC) for f in image.frames]
    return SimImage(width, height, frames, image.seed, image.look)


def _scale(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    return (_scaled(inputs["image"], inputs["width"], inputs["height"]),), None


def _scale_by(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    image: SimImage = inputs["image"]
    factor = float(inputs["scale_by"])
    width, height = round(image.width * factor), round(image.height * factor)
    return (_scaled(image, max(1, width), max(1, height)),), None


def _batch(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    first, second = inputs["image1"], inputs["image2"]
    size = first.frames[0].size
    frames = first.frames + [f.resize(size) for f in second.frames]
    look = zlib.crc32(f"{first.look}+{second.look}".encode()) if second.look else first.look
    return (SimImage(first.width, first.height, frames, first.seed, look),), None


def _empty_latent(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    return (Latent(inputs["width"], inputs["height"], inputs["batch_size"]),), None


def _load_image(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    """ComfyUI's LoadImage of ``sub/name.png`` in the input folder (its first frame): what
    follows depends on the file's bytes (``look``), as a real image-to-image run does."""
    path = resolve(env.input_dir, inputs["image"]) or Path(env.input_dir, str(inputs["image"]))
    data = path.read_bytes()  # FileNotFoundError, as ComfyUI's, when it went since validation
    with Image.open(io.BytesIO(data)) as opened:
        frame = opened.convert("RGB")
    look = zlib.crc32(data) or 1
    image = SimImage(frame.width, frame.height, [frame], look=look)
    return (image, f"<MASK from LoadImage {look:08x}>"), None


def _save(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    info = pnginfo(env.prompt, env.extra_pnginfo)
    prefix = str(inputs["filename_prefix"])
    try:
        images = save_images(inputs["images"], prefix, env.output_dir, "output", info)
    except OutsideOutputFolder as exc:
        raise NodeFailure("Exception", str(exc), _tb("nodes.py", "save_images")) from exc
    return (), {"images": images}


def _preview(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    info = pnginfo(env.prompt, env.extra_pnginfo)
    images = save_images(inputs["images"], temp_prefix(env.rng), env.temp_dir, "temp", info)
    return (), {"images": images}


def _preview_any(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    return (), {"text": [str(inputs.get("source"))]}


def _primitive(inputs: dict[str, Any], env: NodeEnv) -> NodeOutput:
    return (inputs.get("value"),), None


REAL_NODES: dict[str, RealNode] = {
    "EmptyImage": _empty_image,
    "ImageBlur": _blur,
    "ImageInvert": _invert,
    "ImageScale": _scale,
    "ImageScaleBy": _scale_by,
    "ImageBatch": _batch,
    "EmptyLatentImage": _empty_latent,
    "LoadImage": _load_image,
    "SaveImage": _save,
    "PreviewImage": _preview,
    "PreviewAny": _preview_any,
    "PrimitiveInt": _primitive,
    "PrimitiveFloat": _primitive,
    "PrimitiveString": _primitive,
    "PrimitiveStringMultiline": _primitive,
    "PrimitiveBoolean": _primitive,
}


# Real nodes whose pictures hold at most this many pixels run on the event loop: handing them to
# a thread costs more than their work. Bigger ones (and files read from disk) run in a thread, so
# that the server keeps answering meanwhile, as ComfyUI's own does while it executes.
INLINE_PIXELS = 256 * 256


def runs_inline(class_type: str, inputs: dict[str, Any]) -> bool:
    """Whether a real node is small enough to run on the event loop (see ``INLINE_PIXELS``)."""
    if class_type == "LoadImage":
        return False
    pixels = sum(
        frame.width * frame.height
        for value in inputs.values()
        if isinstance(value, SimImage)
        for frame in value.frames
    )
    width, height, batch = (inputs.get(name) for name in ("width", "height", "batch_size"))
    if isinstance(width, int) and isinstance(height, int):  # the size a node is asked to make
        pixels += width * height * (batch if isinstance(batch, int) else 1)
    return pixels <= INLINE_PIXELS


def cpu_seconds(class_type: str, inputs: dict[str, Any]) -> float:
    """Emulated CPU time of a real node on ComfyUI (ImageBlur 2048² r31 ≈ 3.7 s)."""
    if class_type != "ImageBlur":
        return 0.0
    image: SimImage = inputs["image"]
    kernel = 2 * int(inputs["blur_radius"]) + 1
    return image.width * image.height * image.batch * kernel * 1.4e-8


def simulate(class_type: str, inputs: dict[str, Any], output_types: list[str]) -> NodeOutput:
    """A model node's stand-in outputs: latents and images carry size and seed downstream, and
    every output a digest of the node's other inputs, as a real one depends on them (a grid
    over cfg or steps shows different pictures; the same inputs give the same picture)."""
    width, height, batch, seed = _upstream_picture(inputs)
    look = _digest(class_type, inputs)
    values: list[Any] = []
    for kind in output_types:
        if kind == "IMAGE":
            values.append(synthetic(width, height, batch, seed, look))
        elif kind == "LATENT":
            values.append(Latent(width, height, batch, seed, look=look))
        else:
            values.append(f"<{kind} from {class_type} {look:08x}>")
    return tuple(values), None


def _digest(class_type: str, inputs: dict[str, Any]) -> int:
    """A stable digest of a node's inputs but its seed (the seed names the picture itself)."""
    parts = [class_type]
    for name in sorted(inputs):
        value = inputs[name]
        if name in ("seed", "noise_seed"):
            continue
        if isinstance(value, Latent):
            value = ("latent", value.width, value.height, value.batch, value.look)
        elif isinstance(value, SimImage):
            value = ("image", value.width, value.height, value.batch, value.seed) + (
                (value.look,) if value.look else ()
            )
        parts.append(f"{name}={value!r}")
    return zlib.crc32("\n".join(parts).encode("utf-8", "replace"))


def _upstream_picture(inputs: dict[str, Any]) -> tuple[int, int, int, int]:
    width, height, batch, seed = 512, 512, 1, 0
    for value in inputs.values():
        if isinstance(value, Latent | SimImage):
            width, height, batch = value.width, value.height, value.batch
            seed = value.seed if value.seed is not None else seed
    for name in ("seed", "noise_seed"):
        if isinstance(inputs.get(name), int):
            seed = inputs[name]
    return width, height, batch, seed


def _tb(module: str, function: str) -> list[str]:
    return [
        '  File "/opt/ComfyUI/execution.py", line 277, in process_inputs\n'
        "    result = f(**inputs)\n",
        f'  File "/opt/ComfyUI/{module}", line 1, in {function}\n    (simulated)\n',
    ]


def failure_traceback(class_type: str) -> list[str]:
    """A plausible traceback for an injected failure in this class."""
    return _tb("nodes.py", class_type)


# The simulator's node catalogue: ComfyUI 0.3.64's object_info with a few model files added.

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

"""The model files a simulated server lists: its object_info with each model folder's files as
configured (the bundled catalogue's for a folder not named), and `/models/<folder>`'s lists.

A folder's files stand in every input of ComfyUI's own nodes that takes that folder
(`core.placement.model_inputs.known_folder`), sorted as ComfyUI's `get_filename_list` sorts
them; a choice that is no file (VAELoader's "pixel_space") stays after them, as ComfyUI adds it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final

from core.placement.model_inputs import ModelInput, known_folder
from simulator.nodes import simulated_object_info

# ComfyUI 0.3.64's folder_paths.folder_names_and_paths, in its order: what `GET /models` lists.
FOLDER_NAMES: Final = (
    "checkpoints",
    "configs",
    "loras",
    "vae",
    "text_encoders",
    "diffusion_models",
    "clip_vision",
    "style_models",
    "embeddings",
    "diffusers",
    "vae_approx",
    "controlnet",
    "gligen",
    "upscale_models",
    "custom_nodes",
    "hypernetworks",
    "photomaker",
    "classifiers",
    "model_patches",
    "audio_encoders",
)

ModelLists = Mapping[str, Sequence[str]]


def checked_lists(models: ModelLists | None) -> dict[str, list[str]] | None:
    """`models` with each folder's files sorted and unique; ValueError for an unknown folder."""
    if models is None:
        return None
    unknown = sorted(set(models) - set(FOLDER_NAMES))
    if unknown:
        raise ValueError(f"unknown model folders: {', '.join(unknown)}")
    lists: dict[str, list[str]] = {}
    for folder, files in models.items():
        if isinstance(files, str) or not all(isinstance(f, str) for f in files):
            raise ValueError(f"the files of {folder} must be a list of names")
        lists[folder] = sorted(set(files))
    return lists


def object_info_with(models: ModelLists | None) -> dict[str, Any]:
    """The object_info of a server holding `models` (the shared bundled one for None: never
    mutate it)."""
    if not models:
        return simulated_object_info()
    info = copy.deepcopy(simulated_object_info())
    for class_type, node in info.items():
        for section in ("required", "optional"):
            for name, spec in (node.get("input", {}).get(section) or {}).items():
                folder = known_folder(ModelInput(class_type, name))
                if folder is not None and folder in models:
                    _set_choices(spec, models[folder])
    return info


def folder_files(info: Mapping[str, Any], folder: str) -> list[str]:
    """The files of `folder` as `info` lists them: the choices of the first input that takes
    the folder, without those that are no file ([] when no input takes it)."""
    for class_type, node in info.items():
        for section in ("required", "optional"):
            for name, spec in (node.get("input", {}).get(section) or {}).items():
                if known_folder(ModelInput(class_type, name)) == folder:
                    return [c for c in _choices(spec) if not _no_file(c)]
    return []


def _choices(spec: list[Any]) -> list[Any]:
    if isinstance(spec[0], list):
        return list(spec[0])
    if spec[0] == "COMBO" and len(spec) > 1 and isinstance(spec[1].get("options"), list):
        return list(spec[1]["options"])
    return []


def _no_file(choice: object) -> bool:
    """A choice a loader adds that names no file (`pixel_space`, `taesd`): it has no suffix."""
    return isinstance(choice, str) and "." not in choice


def _set_choices(spec: list[Any], files: Sequence[str]) -> None:
    choices = list(files) + [c for c in _choices(spec) if _no_file(c)]
    if isinstance(spec[0], list):
        spec[0] = choices
    elif spec[0] == "COMBO" and len(spec) > 1 and isinstance(spec[1].get("options"), list):
        spec[1]["options"] = choices

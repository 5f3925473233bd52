"""Presets: ComfyUI workflows loaded from API JSON, PNG or editor JSON, with seeds."""

from core.presets.editor_convert import Conversion, convert_editor
from core.presets.loader import MAX_FILE_BYTES, load_preset, preset_from_api, preset_from_bytes
from core.presets.model import (
    InputRef,
    Parameter,
    Preset,
    PresetFormat,
    SeedInput,
    canonical_json,
    workflow_hash,
)
from core.presets.parameters import list_parameters
from core.presets.seeds import detect_seed_inputs, explicit_seed_inputs, follow_seed

__all__ = [
    "MAX_FILE_BYTES",
    "Conversion",
    "InputRef",
    "Parameter",
    "Preset",
    "PresetFormat",
    "SeedInput",
    "canonical_json",
    "convert_editor",
    "detect_seed_inputs",
    "explicit_seed_inputs",
    "follow_seed",
    "list_parameters",
    "load_preset",
    "preset_from_api",
    "preset_from_bytes",
    "workflow_hash",
]

"""The Preset record: an API workflow plus what Batchline learned about it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path


class PresetFormat(StrEnum):
    """Which kind of file a preset was loaded from."""

    api = "api"
    png = "png"
    editor = "editor"


@dataclass(frozen=True, order=True)
class InputRef:
    """One input of one node of an API workflow, written `NODE_ID.INPUT`."""

    node_id: str
    input: str

    def __str__(self) -> str:
        return f"{self.node_id}.{self.input}"

    @classmethod
    def parse(cls, text: str) -> InputRef:
        """Parse `NODE_ID.INPUT` (node ids of expanded subgraphs may contain `:`)."""
        node_id, dot, name = text.strip().partition(".")
        if not (node_id and dot and name.strip()):
            raise ValueError(f"{text!r} is not of the form NODE_ID.INPUT")
        return cls(node_id.strip(), name.strip())


@dataclass(frozen=True)
class SeedInput:
    """A literal seed input that a batch varies, with the range its value may take."""

    ref: InputRef
    minimum: int
    maximum: int


@dataclass(frozen=True)
class Parameter:
    """A literal input the composer may offer for editing, described from the catalogue."""

    ref: InputRef
    node_title: str
    class_type: str
    type: str
    value: Any
    minimum: int | float | None = None
    maximum: int | float | None = None
    step: int | float | None = None
    choices: tuple[Any, ...] = ()
    is_seed: bool = False
    multiline: bool = False  # a text box (prompts), not a one-line field
    colour: bool = False  # an INT ComfyUI shows as a colour (0xRRGGBB)
    name: str = ""  # what the artist reads (core.presets.input_names); "" for its node_title

    @property
    def label(self) -> str:
        """Its one name, "Positive prompt (base) · text", as every door shows it."""
        return self.name or f"{self.node_title} · {self.ref.input}"


@dataclass(frozen=True)
class Preset:
    """A ComfyUI workflow in API format, ready to compose batches from.

    `api_workflow` must be treated as read-only; `content_hash` is the sha256 of its
    canonical JSON, so two files with the same workflow are the same preset content.
    """

    api_workflow: dict[str, Any]
    editor_workflow: dict[str, Any] | None
    source: Path
    format: PresetFormat
    notices: tuple[str, ...]
    seed_inputs: tuple[SeedInput, ...]
    parameters: tuple[Parameter, ...]
    content_hash: str
    catalogue_source: str


def canonical_json(workflow: Any) -> str:
    """The canonical text of a workflow: sorted keys, compact separators, UTF-8 kept."""
    return json.dumps(workflow, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def workflow_hash(workflow: Any) -> str:
    """The sha256 (hex) of a workflow's canonical JSON."""
    return hashlib.sha256(canonical_json(workflow).encode("utf-8")).hexdigest()

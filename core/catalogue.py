"""A typed, immutable view of ComfyUI's `/object_info` node catalogue."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import Any

WIDGET_TYPES = frozenset({"INT", "FLOAT", "STRING", "BOOLEAN", "COMBO"})
BUNDLED_RESOURCE = "object_info-0.3.64.json"
BUNDLED_LABEL = "bundled ComfyUI 0.3.64"

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class InputSpec:
    """One input of a node class: its name, type, options and (for combos) choices."""

    name: str
    type: str
    options: Mapping[str, Any] = field(default_factory=lambda: _EMPTY, compare=False)
    choices: tuple[Any, ...] = ()
    required: bool = True

    @property
    def is_widget(self) -> bool:
        """True when the input takes a literal value (shown as a widget in the editor)."""
        return self.type in WIDGET_TYPES and not self.options.get("forceInput", False)

    @property
    def is_combo(self) -> bool:
        return self.type == "COMBO"

    @property
    def has_control_after_generate(self) -> bool:
        """True when the editor stores an extra control value (`randomize`...) after it."""
        return bool(self.options.get("control_after_generate", False))

    @property
    def takes_upload(self) -> bool:
        """An input that takes a picture uploaded into the server's input folder (``image_upload``:
        LoadImage's and LoadImageMask's ``image``); not one that picks from another folder
        (LoadImageOutput's, ``image_folder: "output"``)."""
        folder = self.options.get("image_folder", "input")
        return bool(self.options.get("image_upload", False)) and folder == "input"

    @property
    def is_colour(self) -> bool:
        """An INT ComfyUI shows as a colour (``display: "color"``, 0xRRGGBB: EmptyImage's)."""
        return self.options.get("display") == "color"

    @property
    def minimum(self) -> int | float | None:
        return _number(self.options.get("min"))

    @property
    def maximum(self) -> int | float | None:
        return _number(self.options.get("max"))

    @property
    def default(self) -> Any:
        return self.options.get("default")

    @classmethod
    def parse(cls, name: str, raw: Any, *, required: bool) -> InputSpec:
        """Parse one `[type, options]` entry of `/object_info` (legacy or newer combo form)."""
        items = list(raw) if isinstance(raw, list | tuple) else [raw]
        head = items[0] if items else "*"
        opts = items[1] if len(items) > 1 and isinstance(items[1], Mapping) else {}
        if isinstance(head, list | tuple):
            return cls(name, "COMBO", _freeze(opts), tuple(head), required)
        if head == "COMBO":
            choices = tuple(opts.get("options") or ())
            return cls(name, "COMBO", _freeze(opts), choices, required)
        return cls(name, str(head), _freeze(opts), (), required)


@dataclass(frozen=True)
class NodeClass:
    """One node class of the catalogue: its inputs in `input_order`, hidden inputs, outputs."""

    name: str
    display_name: str
    category: str
    inputs: tuple[InputSpec, ...]
    hidden: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    output_node: bool = False

    def input(self, name: str) -> InputSpec | None:
        """The input called `name`, or None."""
        return next((spec for spec in self.inputs if spec.name == name), None)

    @property
    def widgets(self) -> tuple[InputSpec, ...]:
        """The literal-valued inputs, in the order the editor stores their values."""
        return tuple(spec for spec in self.inputs if spec.is_widget)

    @classmethod
    def parse(cls, name: str, raw: Mapping[str, Any]) -> NodeClass:
        """Parse one entry of `/object_info`."""
        sections = raw.get("input") or {}
        order = raw.get("input_order") or {}
        inputs = [
            InputSpec.parse(input_name, section[input_name], required=kind == "required")
            for kind in ("required", "optional")
            if isinstance(section := sections.get(kind), Mapping)
            for input_name in _ordered(section, order.get(kind))
        ]
        hidden = sections.get("hidden") or {}
        return cls(
            name=name,
            display_name=str(raw.get("display_name") or name),
            category=str(raw.get("category") or ""),
            inputs=tuple(inputs),
            hidden=tuple(hidden) if isinstance(hidden, Mapping) else (),
            outputs=tuple(str(t) for t in raw.get("output") or ()),
            output_node=bool(raw.get("output_node", False)),
        )


class Catalogue:
    """The node classes a ComfyUI server offers, keyed by class type."""

    def __init__(self, classes: Mapping[str, NodeClass], source: str) -> None:
        self._classes = MappingProxyType(dict(classes))
        self.source = source

    @classmethod
    def from_object_info(cls, raw: Mapping[str, Any], source: str = "server") -> Catalogue:
        """Build a catalogue from a decoded `/object_info` answer; malformed entries are skipped."""
        classes = {
            name: NodeClass.parse(name, entry)
            for name, entry in raw.items()
            if isinstance(entry, Mapping)
        }
        return cls(classes, source)

    @staticmethod
    def bundled() -> Catalogue:
        """The catalogue of a stock ComfyUI 0.3.64, shipped with Batchline (loaded once)."""
        return _bundled()

    @property
    def version(self) -> str:
        """A label saying where the catalogue came from."""
        return self.source

    def get(self, class_type: str) -> NodeClass | None:
        return self._classes.get(class_type)

    def colour_inputs(self, workflow: Mapping[str, Any]) -> frozenset[str]:
        """The ``NODE_ID.INPUT`` keys of ``workflow`` that this catalogue shows as a colour
        (an INT with ``display: "color"``, 0xRRGGBB, such as EmptyImage's)."""
        found = set()
        for node_id, node in workflow.items():
            cls = self.get(str(node.get("class_type"))) if isinstance(node, Mapping) else None
            if cls is None:
                continue
            for name in node.get("inputs") or {}:
                spec = cls.input(name)
                if spec is not None and spec.is_colour:
                    found.add(f"{node_id}.{name}")
        return frozenset(found)

    def picture_inputs(self, workflow: Mapping[str, Any]) -> dict[str, str]:
        """The ``NODE_ID.INPUT`` keys of ``workflow`` that take an uploaded picture
        (``InputSpec.takes_upload``), each with its node's class type, in workflow order."""
        found: dict[str, str] = {}
        for node_id, node in workflow.items():
            if not isinstance(node, Mapping):
                continue
            class_type = str(node.get("class_type"))
            cls = self.get(class_type)
            if cls is None:
                continue
            for name in node.get("inputs") or {}:
                spec = cls.input(name)
                if spec is not None and spec.takes_upload:
                    found[f"{node_id}.{name}"] = class_type
        return found

    def __contains__(self, class_type: object) -> bool:
        return class_type in self._classes

    def __iter__(self) -> Iterator[str]:
        return iter(self._classes)

    def __len__(self) -> int:
        return len(self._classes)

    def __repr__(self) -> str:
        return f"Catalogue({len(self)} classes, source={self.source!r})"


@cache
def _bundled() -> Catalogue:
    text = resources.files("core").joinpath("data", BUNDLED_RESOURCE).read_text("utf-8")
    return Catalogue.from_object_info(json.loads(text), source=BUNDLED_LABEL)


def _ordered(section: Mapping[str, Any], order: Any) -> list[str]:
    """Input names in `input_order` when it lists them all, else in mapping order."""
    if isinstance(order, list) and set(order) == set(section):
        return [str(name) for name in order]
    return [str(name) for name in section]


def _freeze(opts: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(opts))


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value

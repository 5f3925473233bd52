"""A flat, validated model of an editor-format ComfyUI graph (nodes, inputs, links)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import PresetError

MODE_MUTED = 2
MODE_BYPASSED = 4


@dataclass
class Link:
    """Where a connection comes from: the source node id and its output slot."""

    source: str
    slot: int
    type: str = "*"


@dataclass
class NodeInput:
    """One input socket of an editor node; `link` is a key of `Graph.links` or None."""

    name: str
    type: str
    link: str | None = None
    widget: bool = False


@dataclass
class Node:
    """One editor node, with its positional widget values."""

    id: str
    type: str
    mode: int = 0
    title: str | None = None
    inputs: list[NodeInput] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    widgets_values: list[Any] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)

    def input(self, name: str) -> NodeInput | None:
        return next((i for i in self.inputs if i.name == name), None)


@dataclass
class Graph:
    """The nodes of a workflow by id and its links by key."""

    nodes: dict[str, Node]
    links: dict[str, Link]


def is_editor_workflow(data: object) -> bool:
    """True for a mapping with `nodes` and `links` lists (ComfyUI's editor format)."""
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("nodes"), list)
        and isinstance(data.get("links"), list)
    )


def parse_graph(data: Mapping[str, Any], prefix: str = "") -> Graph:
    """Parse the `nodes` and `links` of an editor workflow (or of a subgraph definition)."""
    links = dict(_parse_link(raw, prefix) for raw in _list(data.get("links"), "links"))
    nodes = [parse_node(raw, prefix) for raw in _list(data.get("nodes"), "nodes")]
    by_id: dict[str, Node] = {}
    for node in nodes:
        if node.id in by_id:
            raise PresetError(f"two nodes have the id {node.id}")
        by_id[node.id] = node
    return Graph(by_id, links)


def parse_node(raw: Any, prefix: str = "") -> Node:
    """Parse one editor node; link ids become `prefix`-qualified link keys."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("type"), str):
        raise PresetError(f"a node is not an object with a type: {_short(raw)}")
    node_id = raw.get("id")
    if not isinstance(node_id, int | str) or isinstance(node_id, bool):
        raise PresetError(f"node of type {raw['type']} has no valid id")
    values = raw.get("widgets_values")
    return Node(
        id=prefix + str(node_id),
        type=raw["type"],
        mode=_int(raw.get("mode")),
        title=raw.get("title") if isinstance(raw.get("title"), str) else None,
        inputs=[
            _parse_input(i, prefix) for i in _items(raw.get("inputs")) if isinstance(i, Mapping)
        ],
        outputs=[_output_type(o) for o in _items(raw.get("outputs"))],
        widgets_values=_widget_list(values),
    )


def link_key(prefix: str, link_id: Any) -> str | None:
    if link_id is None:
        return None
    if isinstance(link_id, bool) or not isinstance(link_id, int | str):
        raise PresetError(f"a link id is not a number: {_short(link_id)}")
    return f"{prefix}{link_id}"


def _parse_input(raw: Mapping[str, Any], prefix: str) -> NodeInput:
    widget = raw.get("widget")
    name = widget.get("name") if isinstance(widget, Mapping) else None
    return NodeInput(
        name=str(name or raw.get("name") or ""),
        type=str(raw.get("type") or "*"),
        link=link_key(prefix, raw.get("link")),
        widget=isinstance(widget, Mapping),
    )


def _parse_link(raw: Any, prefix: str) -> tuple[str, Link]:
    """A link is `[id, from, from_slot, to, to_slot, type]` or an object with the same fields."""
    if isinstance(raw, Mapping):
        keys = ("id", "origin_id", "origin_slot", "target_id", "target_slot", "type")
        raw = [raw.get(k) for k in keys]
    if not isinstance(raw, list) or len(raw) < 5:
        raise PresetError(f"a link is malformed: {_short(raw)}")
    key, source, slot = link_key(prefix, raw[0]), raw[1], raw[2]
    if key is None or not isinstance(source, int | str) or not isinstance(slot, int):
        raise PresetError(f"a link is malformed: {_short(raw)}")
    kind = raw[5] if len(raw) > 5 and isinstance(raw[5], str) else "*"
    return key, Link(_qualified(prefix, source), slot, kind)


def _qualified(prefix: str, node_id: int | str) -> str:
    # Subgraph boundary pseudo-nodes (-10 input, -20 output) keep their bare id.
    return str(node_id) if str(node_id).startswith("-") else prefix + str(node_id)


def _output_type(raw: Any) -> str:
    return str(raw.get("type") or "*") if isinstance(raw, Mapping) else "*"


def _widget_list(values: Any) -> list[Any]:
    if isinstance(values, list):
        return list(values)
    if isinstance(values, Mapping):
        # Some custom nodes store widget values by name; keep their order.
        return list(values.values())
    return []


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise PresetError(f"the workflow's {what} is not a list")
    return value


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

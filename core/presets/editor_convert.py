"""Conversion of editor-format ComfyUI workflows to API format, driven by a node catalogue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.catalogue import Catalogue, InputSpec, NodeClass
from core.errors import PresetError
from core.presets.api_format import wrap_value
from core.presets.expand import expand_group_nodes, expand_subgraphs, widget_pairs
from core.presets.graph import MODE_BYPASSED, MODE_MUTED, Graph, Node, parse_graph

if TYPE_CHECKING:
    from collections.abc import Mapping

REROUTE = "Reroute"
PRIMITIVE = "PrimitiveNode"
VIRTUAL_TYPES = frozenset({REROUTE, PRIMITIVE, "Note", "MarkdownNote"})
MAX_TRACE = 1000


@dataclass(frozen=True)
class Conversion:
    """The API workflow made from an editor workflow, and notices for the artist."""

    api_workflow: dict[str, Any]
    notices: tuple[str, ...]


def convert_editor(workflow: Mapping[str, Any], catalogue: Catalogue | None = None) -> Conversion:
    """Convert an editor-format workflow to API format.

    Without a catalogue the bundled one (ComfyUI 0.3.64) is used, and a notice says so.
    Raises PresetError naming the node (and input) for anything that cannot be converted.
    """
    notices: list[str] = []
    if catalogue is None:
        catalogue = Catalogue.bundled()
        notices.append(f"converted with the {catalogue.version} node catalogue (no server)")
    graph = parse_graph(workflow)
    expand_subgraphs(graph, workflow)
    expand_group_nodes(graph, workflow, catalogue)
    _check_links(graph)
    emitted = _emitted_nodes(graph, catalogue)
    ends: dict[tuple[str, str], str | None] = {}
    api = {node.id: _api_node(graph, node, cls, ends) for node, cls in emitted}
    if not api:
        raise PresetError("the workflow has no nodes to run")
    return Conversion(api, tuple(notices))


def _emitted_nodes(graph: Graph, catalogue: Catalogue) -> list[tuple[Node, NodeClass]]:
    """The nodes that become API nodes; unknown node types are reported all at once."""
    emitted, missing = [], []
    for node in graph.nodes.values():
        if node.type in VIRTUAL_TYPES or node.mode in (MODE_MUTED, MODE_BYPASSED):
            continue
        cls = catalogue.get(node.type)
        if cls is not None:
            emitted.append((node, cls))
        elif node.inputs or node.outputs:  # frontend-only nodes have no sockets: skip them
            missing.append(node)
    if missing:
        raise PresetError(_missing_message(missing, catalogue))
    return emitted


def _missing_message(missing: list[Node], catalogue: Catalogue) -> str:
    by_type: dict[str, list[str]] = {}
    for node in missing:
        by_type.setdefault(node.type, []).append(node.id)
    if any(t.startswith("workflow>") or t.startswith("workflow/") for t in by_type):
        hint = "; recreate group nodes as subgraphs"
    else:
        hint = " (custom nodes not installed, or newer than the server)"
    listed = ", ".join(f"{t} (node {', '.join(ids)})" for t, ids in sorted(by_type.items()))
    return f"node types unknown to the {catalogue.version} catalogue: {listed}{hint}"


def _check_links(graph: Graph) -> None:
    for node in graph.nodes.values():
        for socket in node.inputs:
            if socket.link is None:
                continue
            link = graph.links.get(socket.link)
            if link is None or link.source not in graph.nodes:
                raise PresetError(
                    f"node {node.id} ({node.type}), input {socket.name!r}: "
                    f"link {socket.link} is dangling (its source node is missing)"
                )


def _api_node(
    graph: Graph, node: Node, cls: NodeClass, ends: dict[tuple[str, str], str | None]
) -> dict[str, Any]:
    inputs = _widget_inputs(node, cls)
    inputs.update({name: wrap_value(value) for name, value in node.overrides.items()})
    for socket in node.inputs:
        if socket.link is not None:
            resolved = _resolve(graph, socket.link, socket.type, ends)
            if resolved is not _DROPPED:
                inputs[socket.name] = resolved
    return {
        "inputs": inputs,
        "class_type": node.type,
        "_meta": {"title": node.title or cls.display_name},
    }


def _widget_inputs(node: Node, cls: NodeClass) -> dict[str, Any]:
    """A node's widget values; required widgets it was saved without take their default.

    ComfyUI's frontend does the same: a node saved with no `widgets_values` (its own default
    workflow's SaveImage) or with fewer than its widgets keeps the defaults it was built with.
    Optional ones stay out, as older frontends left them: the server has its own defaults.
    """
    pairs, _ = widget_pairs(cls, node.widgets_values)
    inputs = {spec.name: wrap_value(value) for spec, value in pairs}
    for spec in cls.widgets[len(pairs) :]:
        if spec.required:
            inputs[spec.name] = wrap_value(widget_default(spec))
    return inputs


def widget_default(spec: InputSpec) -> Any:
    """The value the frontend gives a new widget: its default, else the first choice or zero."""
    if spec.default is not None:
        return spec.default
    if spec.is_combo:
        return spec.choices[0] if spec.choices else ""
    return {"INT": 0, "FLOAT": 0.0, "STRING": "", "BOOLEAN": False}.get(spec.type)


def _resolve(graph: Graph, key: str, want: str, ends: dict[tuple[str, str], str | None]) -> Any:
    """What an input linked by `key` receives: `[node, slot]`, an inlined literal, or nothing."""
    end = _end_of(graph, key, want, ends)
    link = graph.links.get(end) if end is not None else None
    source = graph.nodes.get(link.source) if link else None
    if link is None or source is None or source.mode == MODE_MUTED:
        return _DROPPED
    if source.type == PRIMITIVE:
        return wrap_value(source.widgets_values[0]) if source.widgets_values else _DROPPED
    return [source.id, link.slot]


def _end_of(
    graph: Graph, key: str, want: str, ends: dict[tuple[str, str], str | None]
) -> str | None:
    """The link that `key` leads to through reroutes and bypassed nodes (None: to nothing).

    `ends` remembers each link passed on the way, so many inputs fed through one long chain
    of reroutes cost one walk along it.
    """
    passed: list[str] = []
    end: str | None = key
    for _ in range(MAX_TRACE):
        if end is None:
            break
        if (end, want) in ends:
            end = ends[(end, want)]
            break
        link = graph.links.get(end)
        source = graph.nodes.get(link.source) if link else None
        if link is None or source is None or not _passes_through(source):
            break
        passed.append(end)
        end = _pass_through(source, link.slot, want)
    else:
        raise PresetError(f"a link loops through reroute or bypassed nodes (link {end})")
    for step in passed:
        ends[(step, want)] = end
    return end


def _passes_through(node: Node) -> bool:
    """A reroute or a bypassed node hands on what it receives (a primitive holds its value)."""
    if node.mode == MODE_MUTED or node.type == PRIMITIVE:
        return False
    return node.type == REROUTE or node.mode == MODE_BYPASSED


def _pass_through(node: Node, slot: int, want: str) -> str | None:
    """The input link a reroute or bypassed node passes to its output `slot`."""
    if node.type == REROUTE:
        return node.inputs[0].link if node.inputs else None
    order = [slot, *range(len(node.inputs))]
    for index in order:
        if index < len(node.inputs) and node.inputs[index].type == want:
            link: str | None = node.inputs[index].link
            return link
    return None


_DROPPED = object()

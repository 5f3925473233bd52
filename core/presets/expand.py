"""Expansion of legacy group nodes and subgraphs into plain nodes of the flat graph."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.errors import PresetError
from core.presets.checks import shape_fault
from core.presets.graph import Graph, Link, Node, NodeInput, parse_graph, parse_node

if TYPE_CHECKING:
    from core.catalogue import Catalogue, InputSpec, NodeClass

GROUP_PREFIXES = ("workflow>", "workflow/")
CONTROL_VALUES = frozenset({"fixed", "increment", "decrement", "randomize"})
SUBGRAPH_INPUT = "-10"
SUBGRAPH_OUTPUT = -20
MAX_NESTING = 32
# Bounds on the expanded graph: subgraphs within subgraphs multiply, so a few KB can ask for
# billions of nodes.
MAX_NODES = 10_000
MAX_LINKS = 50_000


def takes_control_value(spec: InputSpec) -> bool:
    """True when the editor stores a `control_after_generate` value after this widget."""
    return spec.has_control_after_generate or (
        spec.type == "INT" and spec.name in ("seed", "noise_seed")
    )


def widget_pairs(cls: NodeClass, values: list[Any], start: int = 0) -> tuple[list[Any], int]:
    """Pair a node's widgets with positional values from `start`; return pairs and the end.

    A control value (`randomize`, `fixed`, ...) stored after a seed-like widget is skipped.
    """
    pairs: list[Any] = []
    position = start
    for spec in cls.widgets:
        if position >= len(values):
            break
        pairs.append((spec, values[position]))
        position += 1
        if takes_control_value(spec) and _is_control(values, position):
            position += 1
    return pairs, position


def _is_control(values: list[Any], position: int) -> bool:
    # Very old editors stored the control as a boolean ("randomize" on or off).
    value = values[position] if position < len(values) else None
    return isinstance(value, bool) or (isinstance(value, str) and value in CONTROL_VALUES)


def expand_group_nodes(graph: Graph, workflow: Mapping[str, Any], catalogue: Catalogue) -> None:
    """Replace every legacy group node (`workflow>NAME`) by its inner nodes."""
    extra = workflow.get("extra")
    definitions = extra.get("groupNodes") if isinstance(extra, Mapping) else None
    if not isinstance(definitions, Mapping):
        definitions = {}
    groups = [node for node in graph.nodes.values() if group_name(node.type) is not None]
    leaving = _links_by_source(graph, {node.id for node in groups})
    for node in groups:
        definition = definitions.get(group_name(node.type))
        where = f"group node {node.id} ({node.type})"
        if not isinstance(definition, Mapping):
            raise PresetError(f"{where} has no definition; recreate it as a subgraph") from None
        _check_growth(graph, definition)
        try:
            _expand_group(graph, node, definition, catalogue, leaving.get(node.id, []))
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            raise PresetError(
                f"{where} cannot be expanded ({shape_fault(exc)}); recreate it as a subgraph"
            ) from None


def group_name(node_type: str) -> str | None:
    for prefix in GROUP_PREFIXES:
        if node_type.startswith(prefix):
            return node_type[len(prefix) :]
    return None


def _expand_group(
    graph: Graph, group: Node, definition: Mapping[str, Any], cat: Catalogue, leaving: list[str]
) -> None:
    prefix = f"{group.id}:"
    inner = [parse_node({**raw, "id": i}, prefix) for i, raw in enumerate(definition["nodes"])]
    linked_from = _link_group_inside(graph, inner, definition["links"], prefix)
    free = [i for node in inner for i in node.inputs if i.link is None and not i.widget]
    for outer, target in zip(group.inputs, free, strict=False):
        target.link = outer.link
    position = 0
    for node in inner:
        cls = cat.get(node.type)
        if cls is not None:
            _, end = widget_pairs(cls, group.widgets_values, position)
            node.widgets_values, position = group.widgets_values[position:end], end
        node.mode = group.mode
    exposed = [
        (node.id, slot)
        for index, node in enumerate(inner)
        for slot in range(len(node.outputs))
        if (index, slot) not in linked_from or _is_external(definition, index, slot)
    ]
    _repoint(graph, group.id, leaving, dict(enumerate(exposed)))
    _replace(graph, group, inner)


def _link_group_inside(
    graph: Graph, inner: list[Node], links: list[Any], prefix: str
) -> set[tuple[int, int]]:
    """Add the group's internal links to the graph; return the (node, slot) pairs they leave."""
    linked_from: set[tuple[int, int]] = set()
    for index, raw in enumerate(links):
        source, slot, target, target_slot = raw[0], raw[1], raw[2], raw[3]
        if source is None:
            continue
        key = f"{prefix}g{index}"
        graph.links[key] = Link(f"{prefix}{source}", int(slot), str(raw[5]))
        inner[int(target)].inputs[int(target_slot)].link = key
        linked_from.add((int(source), int(slot)))
    return linked_from


def _is_external(definition: Mapping[str, Any], index: int, slot: int) -> bool:
    external = definition.get("external") or []
    return any(
        isinstance(e, list) and e[0].get("index") == index and e[1] == slot for e in external
    )


def expand_subgraphs(graph: Graph, workflow: Mapping[str, Any]) -> None:
    """Replace every subgraph instance (a node whose type is a subgraph id) by its contents."""
    definitions = _subgraph_definitions(workflow)
    for _ in range(MAX_NESTING):
        instances = [n for n in graph.nodes.values() if n.type in definitions]
        if not instances:
            return
        leaving = _links_by_source(graph, {node.id for node in instances})
        for node in instances:
            _check_growth(graph, definitions[node.type])
            try:
                _expand_subgraph(graph, node, definitions[node.type], leaving.get(node.id, []))
            except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
                why = shape_fault(exc)
                raise PresetError(f"subgraph node {node.id} cannot be expanded ({why})") from None
    raise PresetError(f"subgraphs are nested more than {MAX_NESTING} deep (or recursive)")


def _subgraph_definitions(workflow: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    definitions = workflow.get("definitions")
    raw = definitions.get("subgraphs") if isinstance(definitions, Mapping) else None
    if not isinstance(raw, list):
        return {}
    return {str(d["id"]): d for d in raw if isinstance(d, Mapping) and "id" in d}


def _expand_subgraph(
    graph: Graph, instance: Node, definition: Mapping[str, Any], leaving: list[str]
) -> None:
    prefix = f"{instance.id}:"
    inner = parse_graph(definition, prefix)
    promoted = _promoted_values(instance)
    for node in inner.nodes.values():
        node.mode = node.mode or instance.mode
        for socket in node.inputs:
            _bind_boundary_input(graph, inner, instance, promoted, node, socket)
    outputs = {
        int(raw["target_slot"]): (f"{prefix}{raw['origin_id']}", int(raw["origin_slot"]))
        for raw in definition.get("links") or ()
        if isinstance(raw, Mapping) and raw.get("target_id") == SUBGRAPH_OUTPUT
    }
    graph.links.update(inner.links)
    _repoint(graph, instance.id, leaving, outputs)
    _replace(graph, instance, list(inner.nodes.values()))


def _promoted_values(instance: Node) -> dict[int, Any]:
    """Widget values the instance holds for its unconnected widget inputs, by input index."""
    values = iter(instance.widgets_values)
    return {
        index: next(values, None) for index, socket in enumerate(instance.inputs) if socket.widget
    }


def _bind_boundary_input(
    graph: Graph,
    inner: Graph,
    instance: Node,
    promoted: dict[int, Any],
    node: Node,
    socket: NodeInput,
) -> None:
    link = inner.links.get(socket.link) if socket.link else None
    if link is None or link.source != SUBGRAPH_INPUT:
        return
    outer = instance.inputs[link.slot] if link.slot < len(instance.inputs) else None
    socket.link = outer.link if outer else None
    if outer and outer.link is None and outer.widget and promoted.get(link.slot) is not None:
        node.overrides[socket.name] = promoted[link.slot]


def _check_growth(graph: Graph, definition: Mapping[str, Any]) -> None:
    """Refuse to expand one more instance of `definition` past MAX_NODES or MAX_LINKS."""
    nodes, links = definition.get("nodes"), definition.get("links")
    adding = len(nodes) if isinstance(nodes, list) else 0
    linking = len(links) if isinstance(links, list) else 0
    if len(graph.nodes) + adding > MAX_NODES or len(graph.links) + linking > MAX_LINKS:
        raise PresetError(
            f"its subgraphs or group nodes expand to more than {MAX_NODES:,} nodes "
            f"or {MAX_LINKS:,} links (subgraphs within each other multiply)"
        )


def _links_by_source(graph: Graph, sources: set[str]) -> dict[str, list[str]]:
    """The keys of the links leaving each of `sources`.

    Expanding a node only changes the links that leave it, so this holds for a whole pass.
    """
    found: dict[str, list[str]] = {}
    for key, link in graph.links.items():
        if link.source in sources:
            found.setdefault(link.source, []).append(key)
    return found


def _repoint(
    graph: Graph, old_id: str, leaving: list[str], targets: Mapping[int, tuple[str, int]]
) -> None:
    """Make the links `leaving` `old_id` at slot k leave `targets[k]` instead (or drop them)."""
    for key in leaving:
        link = graph.links.get(key)
        if link is None or link.source != old_id:
            continue
        if link.slot in targets:
            link.source, link.slot = targets[link.slot]
        else:
            del graph.links[key]


def _replace(graph: Graph, old: Node, new: list[Node]) -> None:
    del graph.nodes[old.id]
    for node in new:
        graph.nodes[node.id] = node

"""Listing the editable parameters (literal inputs) of an API workflow."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from core.presets.api_format import is_link, node_inputs
from core.presets.model import InputRef, Parameter
from core.presets.prompt_roles import prompt_roles

if TYPE_CHECKING:
    from core.catalogue import Catalogue, InputSpec


def list_parameters(
    api: Mapping[str, Any], catalogue: Catalogue, seeds: Iterable[InputRef] = ()
) -> tuple[Parameter, ...]:
    """Every literal input of the workflow, with title, type and range from the catalogue.

    Prompt texts (multiline strings) come first, as what an artist changes most; the rest
    follows in node order.
    """
    seed_refs = set(seeds)
    roles = prompt_roles(api, catalogue)
    found = [
        _parameter(InputRef(node_id, name), node, value, catalogue, seed_refs, roles.get(node_id))
        for node_id, node in sorted(api.items(), key=lambda item: node_sort_key(item[0]))
        for name, value in node_inputs(node).items()
        if not is_link(value)
    ]
    return tuple(sorted(found, key=lambda parameter: not parameter.multiline))


def node_sort_key(node_id: str) -> tuple[int, ...]:
    """Sort node ids numerically, part by part (`3` < `10` < `10:2`)."""
    return tuple(int(p) if p.isdigit() else -1 for p in str(node_id).split(":"))


def _parameter(
    ref: InputRef,
    node: Mapping[str, Any],
    value: Any,
    catalogue: Catalogue,
    seeds: set[InputRef],
    role: str | None,
) -> Parameter:
    class_type = str(node.get("class_type"))
    cls = catalogue.get(class_type)
    spec = cls.input(ref.input) if cls else None
    return Parameter(
        ref=ref,
        node_title=_title(node, cls.display_name if cls else class_type, role),
        class_type=class_type,
        type=spec.type if spec else _type_of(value),
        value=value,
        minimum=spec.minimum if spec else None,
        maximum=spec.maximum if spec else None,
        step=_step(spec),
        choices=spec.choices if spec else (),
        is_seed=ref in seeds,
        multiline=bool(spec and spec.options.get("multiline")),
        colour=bool(spec and spec.is_colour),
    )


def _title(node: Mapping[str, Any], default: str, role: str | None) -> str:
    """The title the artist gave the node; else its role in the prompt (positive or
    negative); else its class's display name."""
    meta = node.get("_meta")
    title = meta.get("title") if isinstance(meta, Mapping) else None
    if isinstance(title, str) and title and title not in (default, node.get("class_type")):
        return title
    return role or default


def _step(spec: InputSpec | None) -> int | float | None:
    step = spec.options.get("step") if spec else None
    return step if isinstance(step, int | float) and not isinstance(step, bool) else None


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "BOOLEAN"
    if isinstance(value, int):
        return "INT"
    if isinstance(value, float):
        return "FLOAT"
    return "STRING" if isinstance(value, str) else "*"

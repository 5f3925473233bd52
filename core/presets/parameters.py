"""Listing the editable parameters (literal inputs) of an API workflow."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.presets.api_format import is_link, node_inputs
from core.presets.input_names import input_names, node_titles
from core.presets.model import InputRef, Parameter
from core.presets.upload_button import is_upload_button

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from core.catalogue import Catalogue, InputSpec


def list_parameters(
    api: Mapping[str, Any], catalogue: Catalogue, seeds: Iterable[InputRef] = ()
) -> tuple[Parameter, ...]:
    """Every literal input of the workflow, with title, type and range from the catalogue.

    Prompt texts (multiline strings) come first, as what an artist changes most; the rest
    follows in node order. The frontend's upload button (`is_upload_button`) is none.
    """
    seed_refs = set(seeds)
    titles, names = node_titles(api, catalogue), input_names(api, catalogue)
    found = [
        _parameter(InputRef(node_id, name), node, value, catalogue, seed_refs, titles, names)
        for node_id, node in sorted(api.items(), key=lambda item: node_sort_key(item[0]))
        for name, value in node_inputs(node).items()
        if not is_link(value) and not is_upload_button(str(node.get("class_type")), name, catalogue)
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
    titles: Mapping[str, str],
    names: Mapping[str, str],
) -> Parameter:
    class_type = str(node.get("class_type"))
    cls = catalogue.get(class_type)
    spec = cls.input(ref.input) if cls else None
    return Parameter(
        ref=ref,
        node_title=titles[ref.node_id],
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
        name=names[str(ref)],
    )


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

"""Rebuilding the exact workflow a job sends, and "retry smaller" for out-of-memory failures."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from core.errors import CompositionError
from core.presets.api_format import is_link
from core.presets.editor_convert import wrap_value
from core.presets.model import InputRef
from core.presets.model import workflow_hash as workflow_hash

if TYPE_CHECKING:
    from collections.abc import Mapping

SIZE_INPUTS = ("width", "height")
SIZE_MULTIPLE = 8
MIN_SIZE = 64


def build_workflow(api_workflow: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
    """The preset's workflow with `params` (`NODE_ID.INPUT` to value) applied; deterministic."""
    workflow: dict[str, Any] = copy.deepcopy(dict(api_workflow))
    for key in sorted(params):
        ref = InputRef.parse(key)
        node = workflow.get(ref.node_id)
        if not isinstance(node, dict) or not isinstance(node.get("inputs"), dict):
            raise CompositionError(f"parameter {key}: node {ref.node_id} is not in the workflow")
        node["inputs"][ref.input] = wrap_value(copy.deepcopy(params[key]))
    return workflow


def retry_smaller(
    api_workflow: Mapping[str, Any], params: Mapping[str, Any], factor: float = 0.75
) -> dict[str, Any]:
    """New params for a job that ran out of memory: sizes (or else batch sizes) scaled down.

    Width and height are multiplied by `factor` and rounded down to a multiple of 8 (at least
    64); when the workflow has no literal size, batch sizes above 1 are reduced instead.

    Raises:
        CompositionError: when the factor is not in (0, 1) or nothing can be made smaller.
    """
    if not 0 < factor < 1:
        raise CompositionError(f"retry smaller: factor {factor} is not between 0 and 1")
    workflow = build_workflow(api_workflow, params)
    sizes = _literal_ints(workflow, SIZE_INPUTS)
    shrunk = {k: _smaller_size(v, factor) for k, v in sizes.items() if _smaller_size(v, factor) < v}
    if not shrunk:
        batches = _literal_ints(workflow, ("batch_size",))
        shrunk = {k: max(1, int(v * factor)) for k, v in batches.items() if v > 1}
    if not shrunk:
        raise CompositionError("retry smaller: no width, height or batch size left to reduce")
    return {**params, **shrunk}


def _smaller_size(value: int, factor: float) -> int:
    return max(MIN_SIZE, int(value * factor) // SIZE_MULTIPLE * SIZE_MULTIPLE)


def _literal_ints(workflow: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, int]:
    return {
        f"{node_id}.{name}": value
        for node_id, node in workflow.items()
        for name, value in (node.get("inputs") or {}).items()
        if name in names and _is_int(value) and not is_link(value)
    }


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)

"""Rebuilding the exact workflow a job sends, and "retry smaller" for out-of-memory failures."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from core.errors import CompositionError
from core.presets.api_format import is_link, wrap_value
from core.presets.model import InputRef
from core.presets.model import workflow_hash as workflow_hash

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

SIZE_INPUTS = ("width", "height")
SIZE_MULTIPLE = 8
MIN_SIZE = 64
SHRINK_SIZE = "size"
SHRINK_BATCH = "batch size"
SHRINK_KINDS = (SHRINK_SIZE, SHRINK_BATCH)
_SHRINK_NAMES = {SHRINK_SIZE: "width or height", SHRINK_BATCH: "batch size"}


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


def shrinkable(
    api_workflow: Mapping[str, Any], params: Mapping[str, Any]
) -> dict[str, dict[str, int]]:
    """What "retry smaller" can reduce in a job's workflow, by kind (``size``: literal widths
    and heights; ``batch size``: literal batch sizes above 1), each input with its value."""
    workflow = build_workflow(api_workflow, params)
    batches = _literal_ints(workflow, ("batch_size",))
    return {
        SHRINK_SIZE: _literal_ints(workflow, SIZE_INPUTS),
        SHRINK_BATCH: {key: value for key, value in batches.items() if value > 1},
    }


def default_shrink(found: Mapping[str, Mapping[str, int]]) -> str:
    """The batch size when the job makes several images at once (memory grows with it far
    more than with the width: a smaller width does not fix a batch of 4,096), else the size."""
    return SHRINK_BATCH if found.get(SHRINK_BATCH) else SHRINK_SIZE


def retry_smaller(
    api_workflow: Mapping[str, Any],
    params: Mapping[str, Any],
    factor: float = 0.75,
    shrink: Collection[str] | None = None,
) -> dict[str, Any]:
    """New params for a job that ran out of memory: what ``shrink`` names (``size``,
    ``batch size``; by default ``default_shrink``) scaled down by `factor`.

    Width and height are rounded down to a multiple of 8 (at least 64); batch sizes to an
    integer (at least 1).

    Raises:
        CompositionError: when the factor is not in (0, 1), a kind is unknown, or nothing
            of the chosen kinds can be made smaller.
    """
    if not 0 < factor < 1:
        raise CompositionError(f"retry smaller: factor {factor} is not between 0 and 1")
    found = shrinkable(api_workflow, params)
    kinds = set(shrink) if shrink is not None else {default_shrink(found)}
    unknown = sorted(kinds - set(SHRINK_KINDS))
    if unknown or not kinds:
        raise CompositionError(
            f"retry smaller: cannot shrink {', '.join(unknown) or 'nothing'};"
            f" choose {' or '.join(SHRINK_KINDS)}"
        )
    shrunk = {
        key: smaller_value(kind, value, factor)
        for kind in SHRINK_KINDS
        if kind in kinds
        for key, value in found[kind].items()
        if smaller_value(kind, value, factor) < value
    }
    if not shrunk:
        names = " or ".join(_SHRINK_NAMES[kind] for kind in SHRINK_KINDS if kind in kinds)
        raise CompositionError(f"retry smaller: no {names} left to reduce")
    return {**params, **shrunk}


def smaller_value(kind: str, value: int, factor: float) -> int:
    """A size scaled down to a multiple of 8 (at least 64), a batch size to at least 1."""
    if kind == SHRINK_SIZE:
        return max(MIN_SIZE, int(value * factor) // SIZE_MULTIPLE * SIZE_MULTIPLE)
    return max(1, int(value * factor))


def _literal_ints(workflow: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, int]:
    return {
        f"{node_id}.{name}": value
        for node_id, node in workflow.items()
        for name, value in (node.get("inputs") or {}).items()
        if name in names and _is_int(value) and not is_link(value)
    }


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)

"""Parsing and checking input values against the catalogue or the workflow's own literal."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.errors import CompositionError
from core.inputs import PictureRef
from core.presets.api_format import is_link
from core.presets.model import InputRef

if TYPE_CHECKING:
    from core.catalogue import Catalogue, InputSpec

_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


def parse_assignment(text: str) -> tuple[InputRef, str]:
    """Split `NODE_ID.INPUT=value` into its reference and raw value text."""
    target, equals, raw = text.partition("=")
    try:
        ref = InputRef.parse(target)
    except ValueError:
        ref = None
    if not equals or ref is None:
        raise CompositionError(f"override {text!r} is not of the form NODE_ID.INPUT=value")
    return ref, raw


def checked_value(api: Mapping[str, Any], catalogue: Catalogue, ref: InputRef, value: Any) -> Any:
    """The value converted to the input's type and checked against its range and choices.

    A picture (``PictureRef.to_param()``) goes only to an input that takes an uploaded
    picture (``Catalogue.picture_inputs``: LoadImage's ``image``): it is uploaded to each
    server before the job is sent there, so the server's own list of files does not bound it.
    """
    spec, current = _target(api, catalogue, ref)
    picture = PictureRef.from_param(value)
    if picture is not None:
        if spec is None or not spec.takes_upload:
            raise CompositionError(
                f"node {ref.node_id}, input {ref.input!r} does not take a picture file "
                f"(given {picture.file})"
            )
        return picture.to_param()
    kind = spec.type if spec is not None and spec.is_widget else _kind_of(current)
    try:
        if spec is not None and spec.is_colour:
            value = _from_hex(value)
        converted = _convert(kind, value)
    except (TypeError, ValueError) as exc:
        raise CompositionError(f"node {ref.node_id}, input {ref.input!r}: {exc}") from None
    if spec is not None:
        _check_range(ref, spec, converted)
    return converted


def _target(
    api: Mapping[str, Any], catalogue: Catalogue, ref: InputRef
) -> tuple[InputSpec | None, Any]:
    node = api.get(ref.node_id)
    if not isinstance(node, Mapping):
        raise CompositionError(f"node {ref.node_id} is not in the workflow")
    inputs = node.get("inputs") or {}
    if ref.input not in inputs:
        raise CompositionError(f"node {ref.node_id} has no input {ref.input!r}")
    if is_link(inputs[ref.input]):
        raise CompositionError(
            f"node {ref.node_id}, input {ref.input!r} is fed by a link, not a value"
        )
    cls = catalogue.get(str(node.get("class_type")))
    return (cls.input(ref.input) if cls else None), inputs[ref.input]


def _kind_of(current: Any) -> str:
    if isinstance(current, bool):
        return "BOOLEAN"
    if isinstance(current, int):
        return "INT"
    if isinstance(current, float):
        return "FLOAT"
    return "STRING" if isinstance(current, str) else "ANY"


def _convert(kind: str, value: Any) -> Any:
    if kind == "INT":
        return _to_int(value)
    if kind == "FLOAT":
        return _to_float(value)
    if kind == "BOOLEAN":
        return _to_bool(value)
    if kind in ("STRING", "COMBO"):
        if not isinstance(value, str):
            raise TypeError(f"{value!r} is not text")
        return value
    return value


def _from_hex(value: Any) -> Any:
    """``#RRGGBB`` for an integer ComfyUI shows as a colour (EmptyImage's), as the composer
    shows it; anything else is left to the integer's own check."""
    if not (isinstance(value, str) and value.startswith("#")):
        return value
    digits = value[1:]
    if len(digits) == 6 and all(c in "0123456789abcdefABCDEF" for c in digits):
        return int(digits, 16)
    raise ValueError(f"{value!r} is not a colour (#RRGGBB)")


def _to_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"{value!r} is not an integer")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{value!r} is not an integer") from None


def _to_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TypeError(f"{value!r} is not a number")
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{value!r} is not a finite number")
    return number


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE | _FALSE:
        return text in _TRUE
    raise ValueError(f"{value!r} is not true or false")


def _check_range(ref: InputRef, spec: InputSpec, value: Any) -> None:
    where = f"node {ref.node_id}, input {ref.input!r}"
    # A picture input's list is the server's input folder as it was when the catalogue was
    # read (the bundled one's: the recording machine's): a name another server has, picked
    # from its own list, is that server's to check.
    listed = spec.is_combo and spec.choices and not spec.takes_upload
    if listed and value not in spec.choices:
        raise CompositionError(f"{where}: {value!r} is not one of the allowed choices")
    if not isinstance(value, int | float) or isinstance(value, bool):
        return
    low, high = spec.minimum, spec.maximum
    if (low is not None and value < low) or (high is not None and value > high):
        raise CompositionError(f"{where}: {value!r} is outside {low}..{high}")

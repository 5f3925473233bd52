"""Checks of one literal input value, as ComfyUI's ``validate_inputs`` does them (coercing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

Reason = dict[str, Any]

COERCE: dict[str, type] = {"INT": int, "FLOAT": float, "STRING": str, "BOOLEAN": bool}

# Inputs a node checks itself (ComfyUI's VALIDATE_INPUTS): they skip the generic checks.
CUSTOM_CHECKED = {("LoadImage", "image")}


def _reason(kind: str, message: str, details: str, **extra: Any) -> Reason:
    return {"type": kind, "message": message, "details": details, "extra_info": extra}


def check_value(
    class_type: str,
    raw_spec: list[Any],
    inputs: dict[str, Any],
    name: str,
    input_dir: Path,
    check_combo_type: bool,
) -> Reason | None:
    """Coerce ``inputs[name]`` in place and return the first problem, or None."""
    head = raw_spec[0]
    options: dict[str, Any] = raw_spec[1] if len(raw_spec) > 1 else {}
    info = [head, options]
    value = inputs[name]
    if isinstance(value, dict) and "__value__" in value:
        value = inputs[name] = value["__value__"]
    convert = COERCE.get(head) if isinstance(head, str) else None
    if convert is not None:
        try:
            value = inputs[name] = convert(value)
        except (TypeError, ValueError) as exc:
            return _reason(
                "invalid_input_type", f"Failed to convert an input value to a {head} value",
                f"{name}, {value}, {exc}",
                input_name=name, input_config=info, received_value=value,
                exception_message=str(exc),
            )  # fmt: skip
    if (class_type, name) in CUSTOM_CHECKED:
        return _custom_check(value, name, input_dir)
    return _range_check(value, name, info) or _list_check(value, name, info, check_combo_type)


def _range_check(value: Any, name: str, info: list[Any]) -> Reason | None:
    options = info[1]
    if "min" in options and value < options["min"]:
        return _reason(
            "value_smaller_than_min", f"Value {value} smaller than min of {options['min']}", name,
            input_name=name, input_config=info, received_value=value,
        )  # fmt: skip
    if "max" in options and value > options["max"]:
        return _reason(
            "value_bigger_than_max", f"Value {value} bigger than max of {options['max']}", name,
            input_name=name, input_config=info, received_value=value,
        )  # fmt: skip
    return None


def _list_check(value: Any, name: str, info: list[Any], check_combo_type: bool) -> Reason | None:
    head, options = info
    if isinstance(head, list):
        choices = head
    elif check_combo_type and head == "COMBO":
        choices = list(options.get("options") or [])
    else:
        return None
    if value in choices:
        return None
    config: list[Any] | None = info
    listed = str(choices)
    if len(choices) > 20:
        config, listed = None, f"(list of length {len(choices)})"
    return _reason(
        "value_not_in_list", "Value not in list", f"{name}: '{value}' not in {listed}",
        input_name=name, input_config=config, received_value=value,
    )  # fmt: skip


def _custom_check(value: Any, name: str, input_dir: Path) -> Reason | None:
    if isinstance(value, str) and value and (input_dir / value).is_file():
        return None
    return _reason(
        "custom_validation_failed", "Custom validation failed for node",
        f"{name} - Invalid image file: {value}", input_name=name,
    )  # fmt: skip

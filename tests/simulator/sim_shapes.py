"""Shape comparison of ComfyUI answers (logic of shared/tools/shape_diff.py, self-contained)."""

from __future__ import annotations

import json
import re
from typing import Any

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
IGNORED = ("traceback", "current_inputs", "current_outputs")


def shape(value: Any) -> Any:
    """Keys and value types; id-keyed maps collapse to the shape of their first value."""
    if isinstance(value, dict):
        if value and all(UUID.match(k) or k.isdigit() for k in value):
            return {"<id>": shape(next(iter(value.values())))}
        return {k: shape(v) for k, v in sorted(value.items()) if k not in IGNORED}
    if isinstance(value, list):
        if value and not isinstance(value[0], dict | list):
            return [shape(value[0])]
        return [shape(v) for v in value]
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "num"
    return "null" if value is None else "str"


def diff(a: Any, b: Any, path: str = "$") -> list[str]:
    """Differences between two shapes (empty when they agree)."""
    if type(a) is not type(b):
        return [f"{path}: {json.dumps(a)[:60]} vs {json.dumps(b)[:60]}"]
    out: list[str] = []
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a:
                out.append(f"{path}.{key}: only in other")
            elif key not in b:
                out.append(f"{path}.{key}: missing")
            else:
                out += diff(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append(f"{path}: list length {len(a)} vs {len(b)}")
        for index, (x, y) in enumerate(zip(a, b, strict=False)):
            out += diff(x, y, f"{path}[{index}]")
    elif a != b:
        out.append(f"{path}: {a} vs {b}")
    return out


def exchange_diff(recorded: dict[str, Any], status: int, response: Any) -> list[str]:
    real = {"status": recorded["status"], "body": shape(recorded["response"])}
    return diff(real, {"status": status, "body": shape(response)})


def per_prompt_sequences(messages: list[dict[str, Any]]) -> list[list[str]]:
    """WebSocket message types per prompt_id (status excluded, repeats collapsed)."""
    sequences: dict[Any, list[str]] = {}
    for message in messages:
        if message["type"] == "status":
            continue
        prompt_id = (message.get("data") or {}).get("prompt_id")
        sequence = sequences.setdefault(prompt_id, [])
        if not sequence or sequence[-1] != message["type"]:
            sequence.append(message["type"])
    return list(sequences.values())

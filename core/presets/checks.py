"""Checks a workflow passes before it becomes a preset: values ComfyUI or the ledger cannot take.

JSON lets a file carry NaN, infinities (`1e999`), lone UTF-16 surrogates (`"\\ud800"`) and links
that form a cycle; each is refused here with one line naming the node and input.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from core.errors import InputError, PresetError
from core.presets.api_format import is_link

# A cycle longer than this is shown by its first nodes and its length.
MAX_CYCLE_SHOWN = 8


def check_workflow(api: Mapping[str, Any]) -> None:
    """Refuse non-finite numbers, text that is not valid Unicode, and links that form a cycle.

    Raises:
        PresetError: naming the node and input (or field) that holds the value, or the nodes
            of the cycle.
    """
    for node_id, node in api.items():
        _check_node(_node(api, node_id), node_id, node)
    cycle = find_cycle(api)
    if cycle:
        raise PresetError(f"links form a cycle: {_describe_cycle(api, cycle)}")


def check_name(name: str, hint: str = "") -> None:
    """Refuse a preset name that is not valid Unicode (from a file or argument name that is not
    UTF-8): the ledger can neither store nor look it up.

    Raises:
        InputError: naming the name, its invalid part escaped, then `hint`.
    """
    if _lone_surrogate(name):
        message = f"the preset name '{escape_invalid(name)}' is not valid UTF-8 text"
        raise InputError(f"{message}; {hint}" if hint else message)


def escape_invalid(text: str) -> str:
    """`text` with what is not valid Unicode (lone surrogates) written as `\\udcff` escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def find_cycle(api: Mapping[str, Any]) -> list[str]:
    """The nodes of a cycle of links in data-flow order (each feeds the next, the last the
    first), or an empty list when the links form none."""
    state: dict[str, int] = {}  # 1 while on the current path, 2 once fully explored
    for start in api:
        if start in state:
            continue
        path, pending = [start], [iter(_sources(api, start))]
        state[start] = 1
        while path:
            source = next(pending[-1], None)
            if source is None:
                state[path.pop()] = 2
                pending.pop()
            elif state.get(source) == 1:
                # Each node on the path takes an input from the next one, the last from `source`.
                return [source, *path[path.index(source) + 1 :][::-1]]
            elif source not in state:
                state[source] = 1
                path.append(source)
                pending.append(iter(_sources(api, source)))
    return []


def _sources(api: Mapping[str, Any], node_id: str) -> list[str]:
    """The nodes whose outputs `node_id` takes as inputs."""
    inputs = api[node_id].get("inputs")
    if not isinstance(inputs, Mapping):
        return []
    return [value[0] for value in inputs.values() if is_link(value) and value[0] in api]


def _describe_cycle(api: Mapping[str, Any], cycle: list[str]) -> str:
    shown = [_node(api, node_id) for node_id in cycle[:MAX_CYCLE_SHOWN]]
    if len(cycle) > MAX_CYCLE_SHOWN:
        return " -> ".join(shown) + f" -> ... ({len(cycle)} nodes in all)"
    return " -> ".join([*shown, f"node {escape_invalid(cycle[0])}"])


def _node(api: Mapping[str, Any], node_id: str) -> str:
    class_type = api[node_id].get("class_type")
    return f"node {escape_invalid(node_id)} ({escape_invalid(str(class_type))})"


def _check_node(where: str, node_id: str, node: Mapping[str, Any]) -> None:
    surrogate = _lone_surrogate(node_id)
    if surrogate:
        raise PresetError(f"{where}: its id {surrogate}")
    for field, content in node.items():
        if field == "inputs" and isinstance(content, Mapping):
            for name, value in content.items():
                _refuse(f"{where}, input {name!r}", _problem(name) or _problem(value))
        else:
            _refuse(f"{where}, field {field!r}", _problem(field) or _problem(content))


def _refuse(what: str, problem: str | None) -> None:
    if problem:
        raise PresetError(f"{what}: {problem}")


def _problem(value: Any) -> str | None:
    """What makes `value` (walked through lists and objects) unfit, or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            surrogate = _lone_surrogate(item)
            if surrogate:
                return f"the text {surrogate}"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{item} is not a finite number"
        elif isinstance(item, Mapping):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _lone_surrogate(text: str) -> str | None:
    """Where `text` is not valid Unicode (a lone UTF-16 surrogate, or a byte that was not
    UTF-8 in a file name or argument), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        found = escape_invalid(text[exc.start])
        return f"holds a lone surrogate ({found} at character {exc.start}): not valid Unicode"
    return None


_JSON_KINDS = {
    "int": "a number",
    "float": "a number",
    "str": "text",
    "list": "a list",
    "tuple": "a list",
    "dict": "an object",
    "NoneType": "null",
    "bool": "true or false",
}
_OBJECT_METHODS = frozenset({"get", "items", "keys", "values"})


def shape_fault(exc: Exception) -> str:
    """What an unforeseen shape in an untrusted workflow was, in JSON's words: "a number where
    an object was expected", not Python's "'int' object has no attribute 'get'"."""
    if isinstance(exc, KeyError):
        return f"the entry {exc.args[0]!r} is missing" if exc.args else "an entry is missing"
    if isinstance(exc, IndexError):
        return "a link or slot points past the end of its list"
    if isinstance(exc, RecursionError):
        return "it is nested too deeply"
    text = str(exc)
    if isinstance(exc, ValueError) and "invalid literal for int()" in text:
        return "text where a whole number was expected"
    found = re.search(r"'(\w+)' object", text)
    if found is None:
        return "a value of the wrong kind" if isinstance(exc, TypeError) else "a value out of place"
    kind = _JSON_KINDS.get(found.group(1), found.group(1))
    wants_object = isinstance(exc, AttributeError) and getattr(exc, "name", None) in _OBJECT_METHODS
    if wants_object or "not a mapping" in text:
        wanted = "an object"
    elif "not iterable" in text:
        wanted = "a list"
    elif "not subscriptable" in text:
        wanted = "an object or a list"
    else:
        wanted = "something else"
    return f"{kind} where {wanted} was expected"

"""Limits on the text the ledger stores from ComfyUI (error messages, warnings, notes).

A server decides how long its exception messages are; a 2 MB message per attempt must not grow
the ledger by megabytes. Each string is cut to ``MAX_TEXT`` characters (saying how much was
left out) and each list to ``MAX_ITEMS`` items, at any depth of a JSON value.
"""

from __future__ import annotations

from typing import Any

MAX_TEXT = 4000
MAX_ITEMS = 100


def bounded_text(text: str, limit: int = MAX_TEXT) -> str:
    """``text``, or its first ``limit`` characters and how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"


def bounded(value: Any) -> Any:
    """A JSON value with every string and list within the limits (dict keys included)."""
    if isinstance(value, str):
        return bounded_text(value)
    if isinstance(value, dict):
        items = list(value.items())
        kept = {bounded_text(str(k), 200): bounded(v) for k, v in items[:MAX_ITEMS]}
        if len(items) > MAX_ITEMS:
            kept["…"] = f"{len(items) - MAX_ITEMS} more entries"
        return kept
    if isinstance(value, list | tuple):
        kept_items = [bounded(v) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            kept_items.append(f"… {len(value) - MAX_ITEMS} more")
        return kept_items
    return value

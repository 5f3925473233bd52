"""ComfyUI's in-memory history: entries keyed by prompt_id in completion order, capped."""

from __future__ import annotations

from typing import Any

MAXIMUM_HISTORY_SIZE = 10000

Entry = dict[str, Any]


class History:
    """Finished prompts by id, oldest first; a re-run id keeps its earlier position."""

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, prompt_id: object) -> bool:
        return prompt_id in self._entries

    def add(self, prompt_id: str, entry: Entry) -> None:
        if len(self._entries) > MAXIMUM_HISTORY_SIZE:
            del self._entries[next(iter(self._entries))]
        self._entries[prompt_id] = entry

    def get(self, prompt_id: str) -> Entry | None:
        return self._entries.get(prompt_id)

    def items(self) -> list[tuple[str, Entry]]:
        return list(self._entries.items())

    def window(self, max_items: int | None, offset: int | None) -> dict[str, Entry]:
        """ComfyUI's ``get_history``: newest N, or ``[offset, offset + N)`` from the oldest."""
        keys = list(self._entries)
        if offset is not None:
            if offset >= len(keys):
                return {}
            keys = keys[offset:]
            if max_items is not None:
                keys = keys[:max_items]
        elif max_items is not None:
            keys = keys[-max_items:] if max_items > 0 else []
        return {key: self._entries[key] for key in keys}

    def delete(self, prompt_id: str) -> None:
        self._entries.pop(prompt_id, None)

    def clear(self) -> None:
        self._entries.clear()

"""The composer's choices for each preset (seeds, values, the axes with their walks, the
pictures chosen, the wildcard modes), kept in the ledger's settings as the composer gives
them, so that switching preset or restarting the window loses nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.errors import BatchlineError

if TYPE_CHECKING:
    from core.ledger import Ledger

KEY_PREFIX = "composer/"


def composer_key(preset_name: str) -> str:
    """The settings key of a preset's composer state."""
    return f"{KEY_PREFIX}{preset_name}"


def load_composer_state(ledger: Ledger, preset_name: str) -> dict[str, Any] | None:
    """What the artist last set for the preset, or None when never set (or reset)."""
    stored = ledger.settings.get(composer_key(preset_name))
    return dict(stored) if isinstance(stored, Mapping) else None


def save_composer_state(ledger: Ledger, preset_name: str, state: Mapping[str, Any]) -> None:
    ledger.settings.set(composer_key(preset_name), dict(state))


def has_unsaved_values(ledger: Ledger, preset_name: str) -> bool:
    """Whether the composer keeps values for the preset that differ from its own workflow's
    (changed in the composer, neither saved as the preset nor reset): its "edited" mark."""
    values = (load_composer_state(ledger, preset_name) or {}).get("values")
    if not isinstance(values, Mapping) or not values:
        return False
    try:
        workflow = ledger.presets.get(preset_name).api_workflow
    except BatchlineError:  # gone meanwhile: nothing to mark
        return False
    return any(_value_of(workflow, str(key)) != value for key, value in values.items())


def _value_of(workflow: Mapping[str, Any], key: str) -> Any:
    """The workflow's value at ``NODE_ID.INPUT`` (None where it has none)."""
    node_id, _, name = key.partition(".")
    node = workflow.get(node_id)
    inputs = node.get("inputs") if isinstance(node, Mapping) else None
    return inputs.get(name) if isinstance(inputs, Mapping) else None


def forget_composer_state(ledger: Ledger, preset_name: str) -> None:
    """Back to the preset's own values the next time it is composed."""
    ledger.settings.set(composer_key(preset_name), None)

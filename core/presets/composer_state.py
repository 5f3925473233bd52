"""The composer's choices for each preset (seeds, values, the axes with their walks, the
pictures chosen, the wildcard modes), kept in the ledger's settings as the composer gives
them, so that switching preset or restarting the window loses nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

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


def forget_composer_state(ledger: Ledger, preset_name: str) -> None:
    """Back to the preset's own values the next time it is composed."""
    ledger.settings.set(composer_key(preset_name), None)

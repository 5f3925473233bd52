"""Presets that arrived from elsewhere (sent from ComfyUI's editor): the latest is kept in the
ledger so an open window can bring itself forward with the composer on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.ledger import Ledger

ARRIVED = "presets.arrived"  # the settings key holding the latest arrival


@dataclass(frozen=True)
class Arrival:
    """A preset stored from elsewhere: which one, which version, by whom, from where, when."""

    preset: str
    version: int
    requester: str
    origin: str
    at: float


def record_arrival(ledger: Ledger, arrival: Arrival) -> None:
    ledger.settings.set(ARRIVED, arrival.__dict__)


def latest_arrival(ledger: Ledger) -> Arrival | None:
    """The latest arrival, or None (none yet, or a value this version cannot read)."""
    stored = ledger.settings.get(ARRIVED)
    if not isinstance(stored, dict):
        return None
    try:
        return Arrival(
            str(stored["preset"]),
            int(stored["version"]),
            str(stored["requester"]),
            str(stored["origin"]),
            float(stored["at"]),
        )
    except (KeyError, TypeError, ValueError):
        return None

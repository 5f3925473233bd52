"""The latest preset sent from elsewhere, kept in the ledger for an open window."""

from __future__ import annotations

from core.ledger import Ledger
from core.ledger.arrivals import ARRIVED, Arrival, latest_arrival, record_arrival


def test_the_latest_arrival_is_read_back_and_a_bad_one_is_none(ledger: Ledger) -> None:
    assert latest_arrival(ledger) is None
    arrival = Arrival("Fox portrait", 2, "comfyui", "http://127.0.0.1:8188", 12.5)
    record_arrival(ledger, arrival)
    assert latest_arrival(ledger) == arrival
    ledger.settings.set(ARRIVED, {"preset": "x"})
    assert latest_arrival(ledger) is None

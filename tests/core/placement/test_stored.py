"""An offer as the ledger keeps it: JSON that reads back to the same offer, and damage that
reads as nothing offered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.placement.server_offer import offer_from_object_info
from core.placement.stored import offer_from_json, offer_to_json

RECORDING = Path(__file__).parent / "data" / "object_info_models.json"


def test_a_real_servers_offer_reads_back_equal_through_json() -> None:
    recorded = json.loads(RECORDING.read_text())
    offer = offer_from_object_info(recorded["response"]["body"])
    assert offer.model_inputs  # the recording lists checkpoints
    assert offer_from_json(json.loads(json.dumps(offer_to_json(offer)))) == offer


@pytest.mark.parametrize(
    "damaged",
    [None, [], "x", {"node_classes": "KSampler"}, {"model_inputs": [{"class_type": 1}]}],
)
def test_damaged_json_offers_nothing(damaged: object) -> None:
    offer = offer_from_json(damaged)
    assert not offer.node_classes
    assert not offer.model_inputs

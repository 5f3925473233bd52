"""The servers' offers kept in the ledger: what the controller read, seen by every process."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from core.catalogue import BUNDLED_RESOURCE
from core.ledger import Ledger
from core.paths import ledger_path
from core.placement.model_inputs import ModelInput
from core.placement.server_offer import ServerOffer, offer_from_object_info

CKPT = ModelInput("CheckpointLoaderSimple", "ckpt_name")


BUNDLED = json.loads((Path(__file__).parents[3] / "core" / "data" / BUNDLED_RESOURCE).read_text())


def _offer(*checkpoints: str) -> ServerOffer:
    """The bundled catalogue's loader, KSampler and SaveImage, listing ``checkpoints``."""
    info = {name: BUNDLED[name] for name in ("CheckpointLoaderSimple", "KSampler", "SaveImage")}
    info = json.loads(json.dumps(info))
    info["CheckpointLoaderSimple"]["input"]["required"]["ckpt_name"][0] = list(checkpoints)
    return offer_from_object_info(info)


def test_an_offer_stored_reads_back_whole_in_another_handle(tmp_path: Path) -> None:
    offer = _offer("a.safetensors", "b.safetensors")
    with Ledger(tmp_path) as ledger:
        ledger.server_offers.store("http://gpu-1:8188", offer)
    with Ledger(tmp_path) as other:
        stored = other.server_offers.all()
    assert list(stored) == ["http://gpu-1:8188"]
    assert stored["http://gpu-1:8188"].offer == offer
    assert stored["http://gpu-1:8188"].offer.files_of(CKPT) == {"a.safetensors", "b.safetensors"}


def test_a_new_reading_replaces_the_last_and_forget_drops_it(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        ledger.server_offers.store("http://gpu-1:8188", _offer("a.safetensors"))
        ledger.server_offers.store("http://gpu-1:8188", _offer("c.safetensors"))
        ledger.server_offers.store("http://gpu-2:8188", _offer())
        assert ledger.server_offers.all()["http://gpu-1:8188"].offer.files_of(CKPT) == {
            "c.safetensors"
        }
        ledger.server_offers.forget("http://gpu-2:8188")
        assert list(ledger.server_offers.all()) == ["http://gpu-1:8188"]


def test_a_damaged_row_offers_nothing_rather_than_everything(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        ledger.server_offers.store("http://gpu-1:8188", _offer("a.safetensors"))
    conn = sqlite3.connect(ledger_path(tmp_path))
    conn.execute("UPDATE server_offer SET offer_json = ?", (json.dumps({"node_classes": 3}),))
    conn.execute("INSERT INTO server_offer VALUES ('http://gpu-2:8188', 'not json', 0)")
    conn.commit()
    conn.close()
    with Ledger(tmp_path) as ledger:
        stored = ledger.server_offers.all()
    assert all(not s.offer.node_classes and not s.offer.model_inputs for s in stored.values())
    assert len(stored) == 2

"""The names servers gave Batchline's input pictures, kept in the ledger: seen by every
process, one per server and picture, forgotten one at a time or a server's all at once."""

from __future__ import annotations

from pathlib import Path

from core.ledger import Ledger

SHA_A, SHA_B = "a" * 64, "b" * 64
GPU_1, GPU_2 = "http://gpu-1:8188", "http://gpu-2:8188"


def test_a_name_put_reads_back_in_another_handle(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        assert ledger.server_pictures.get(GPU_1, SHA_A) is None
        ledger.server_pictures.put(GPU_1, SHA_A, "batchline/aaaa.png")
    with Ledger(tmp_path) as other:
        assert other.server_pictures.get(GPU_1, SHA_A) == "batchline/aaaa.png"
        assert other.server_pictures.get(GPU_2, SHA_A) is None  # each server its own


def test_a_new_name_replaces_the_last_and_forget_drops_one_or_all(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        pictures = ledger.server_pictures
        pictures.put(GPU_1, SHA_A, "batchline/aaaa.png")
        pictures.put(GPU_1, SHA_A, "batchline/aaaa (1).png")  # renamed on a clash
        pictures.put(GPU_1, SHA_B, "batchline/bbbb.png")
        pictures.put(GPU_2, SHA_A, "batchline/aaaa.png")
        assert pictures.of_server(GPU_1) == {
            SHA_A: "batchline/aaaa (1).png",
            SHA_B: "batchline/bbbb.png",
        }
        pictures.forget(GPU_1, SHA_A)
        assert pictures.of_server(GPU_1) == {SHA_B: "batchline/bbbb.png"}
        pictures.forget(GPU_1)
        assert pictures.of_server(GPU_1) == {}
        assert pictures.of_server(GPU_2) == {SHA_A: "batchline/aaaa.png"}

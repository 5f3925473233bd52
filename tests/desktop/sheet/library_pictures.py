"""A ledger's library for the library's tests: finished jobs with real PNGs in several batches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.ledger.marks import Mark
from tests.core.finished_pictures import add_preset, finished

if TYPE_CHECKING:
    from pathlib import Path

    from core.ledger import Ledger


def fill_library(ledger: Ledger, folder: Path) -> dict[str, str]:
    """Four pictures in two batches: a fox (seed 1042, cfg 7.5, starred), an owl (seed 42,
    another model), a fox in the snow (seed 7, LoRA film_grain), and, newest, a cat (sampler
    ddim); their job ids by name."""
    add_preset(ledger)
    _, (fox, owl, snow) = finished(
        ledger,
        folder,
        [
            {"3.seed": 1042, "3.cfg": 7.5},
            {"3.seed": 42, "6.text": "an owl at dusk", "4.ckpt_name": "dreamshaper_8.safetensors"},
            {"3.seed": 7, "6.text": "a fox in the snow", "10.lora_name": "film_grain.safetensors"},
        ],
        name="Evening foxes",
    )
    _, (cat,) = finished(
        ledger, folder, [{"3.seed": 99, "6.text": "a cat", "3.sampler_name": "ddim"}]
    )
    ledger.marks.set([fox], Mark.star)
    return {"fox": fox, "owl": owl, "snow": snow, "cat": cat}

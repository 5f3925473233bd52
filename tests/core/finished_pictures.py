"""Jobs that succeeded with real PNG pictures, in a real ledger, for the tests of the picture
search (tests/core/ledger/test_picture_index.py, tests/core/pictures/test_search.py, the CLI's
and the API's)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from core.ledger import Ledger, NewJob, PresetContent
from tests.core.helpers import succeed

if TYPE_CHECKING:
    from collections.abc import Sequence

REPO = Path(__file__).resolve().parents[2]
PORTRAIT = json.loads(
    (REPO / "resources" / "presets" / "Portrait txt2img (SD 1.5).json").read_text()
)
# The portrait preset with a LoRA between its checkpoint and its sampler and text encoder.
WITH_LORA: dict[str, Any] = {
    **json.loads(json.dumps(PORTRAIT)),
    "10": {
        "class_type": "LoraLoader",
        "inputs": {
            "lora_name": "detail_tweaker.safetensors",
            "strength_model": 0.8,
            "strength_clip": 0.8,
            "model": ["4", 0],
            "clip": ["4", 1],
        },
    },
}
WITH_LORA["3"]["inputs"]["model"] = ["10", 0]
WITH_LORA["6"]["inputs"]["clip"] = ["10", 1]
_PROMPTS = itertools.count()


def add_preset(
    ledger: Ledger, name: str = "Portrait", workflow: dict[str, Any] | None = None
) -> None:
    chosen = workflow or WITH_LORA
    ledger.presets.add(name, PresetContent(f"hash-{name}", chosen))


def finished(
    ledger: Ledger,
    folder: Path,
    params: Sequence[dict[str, Any]],
    *,
    preset: str = "Portrait",
    requester: str = "artist",
    server: str = "http://gpu-1:8188",
    pictures: int = 1,
    name: str | None = None,
) -> tuple[str, list[str]]:
    """A batch of ``preset`` with a job per ``params``, each succeeded with ``pictures`` real
    PNGs under ``folder`` (in job order); its id and its jobs'."""
    batch, ids = ledger.create_batch(
        preset, [NewJob(p) for p in params], requester=requester, name=name
    )
    folder.mkdir(parents=True, exist_ok=True)
    for job_id in ids:
        prompt_id = f"prompt-{next(_PROMPTS)}"
        ledger.submit_attempt(job_id, prompt_id, server, "wf")
        ledger.observe_running(prompt_id)
        paths = [folder / f"{job_id}_{n}.png" for n in range(pictures)]
        for path in paths:
            Image.new("RGB", (8, 8), (200, 90, 30)).save(path)
        assert succeed(ledger, prompt_id, [str(path) for path in paths])
    return batch.id, ids

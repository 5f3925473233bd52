"""A picture's parameters carried out with it: the A1111 ``parameters`` text written into a
copy beside ComfyUI's own chunks, and, when asked, the same values as a JSON file beside it.

The values are read from the workflow the picture carries (ComfyUI's ``prompt`` chunk: what
was sent), else from its job in the ledger (the batch's workflow with the job's values).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from core.batch.workflow import build_workflow
from core.files import write_new
from core.presets.a1111_fields import infotext_of
from core.presets.infotext import format_infotext
from core.presets.png_parameters import (
    carried_workflow,
    png_size,
    with_parameters,
)
from core.presets.png_text import SIGNATURE

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from core.ledger import Ledger
    from core.pictures.pictures import Picture
    from core.presets.infotext import Infotext

SIDECAR_SUFFIX = ".json"


@dataclass(frozen=True)
class Carried:
    """What an exported picture carries: its A1111 text (None: no sampler found) and the
    sidecar's values."""

    text: str | None
    sidecar: dict[str, Any]


def carried(ledger: Ledger, picture: Picture, data: bytes) -> Carried:
    """The parameters of `picture` (its file's bytes `data`)."""
    job = ledger.job(picture.job_id)
    batch = ledger.batch(job.batch)
    api = carried_workflow(data) or build_workflow(ledger.workflow(batch.workflow_hash), job.params)
    info = infotext_of(api, png_size(data))
    text = format_infotext(info) if info is not None else None
    sidecar: dict[str, Any] = {"parameters": text, **(_fields(info) if info else {})}
    sidecar.update({"job": job.id, "batch": batch.id, "preset": batch.preset})
    sidecar["values"] = job.params
    return Carried(text, sidecar)


def export_picture(
    ledger: Ledger, picture: Picture, folder: Path, *, sidecar: bool = False
) -> tuple[Path, Path | None]:
    """Copy `picture` into `folder` under its own name, never over another file: a PNG with
    the ``parameters`` text added (its pixels and ComfyUI's chunks as they are), any other
    file as it is; with `sidecar`, its values as ``<stem>.json`` beside the copy. The copy's
    path and the sidecar's (None: none written)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = picture.path.read_bytes()
    if not data.startswith(SIGNATURE):
        return write_new(folder / picture.path.name, partial(_write, data)), None
    found = carried(ledger, picture, data)
    copy_bytes = with_parameters(data, found.text)
    copy = write_new(folder / picture.path.name, partial(_write, copy_bytes))
    if not sidecar:
        return copy, None
    values = json.dumps(found.sidecar, ensure_ascii=False, indent=2).encode() + b"\n"
    return copy, write_new(copy.with_suffix(SIDECAR_SUFFIX), partial(_write, values))


def _fields(info: Infotext) -> dict[str, Any]:
    size = info.size()
    fields: dict[str, Any] = {"prompt": info.prompt, "negative_prompt": info.negative}
    fields.update(_typed(info.params))
    if size is not None:
        fields["width"], fields["height"] = size
    fields["loras"] = [{"name": name, "weight": _number(w)} for name, w in info.loras]
    return fields


_KEYS = {
    "Steps": "steps",
    "Sampler": "sampler",
    "Schedule type": "schedule_type",
    "CFG scale": "cfg_scale",
    "Seed": "seed",
    "Model hash": "model_hash",
    "Model": "model",
    "Denoising strength": "denoising_strength",
}


def _typed(params: Mapping[str, str]) -> dict[str, Any]:
    numbers = {"steps", "cfg_scale", "seed", "denoising_strength"}
    return {
        _KEYS[key]: _number(value) if _KEYS[key] in numbers else value
        for key, value in params.items()
        if key in _KEYS
    }


def _number(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def _write(data: bytes, part: Path) -> None:
    part.write_bytes(data)

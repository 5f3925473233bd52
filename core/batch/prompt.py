"""The exact prompt an attempt sends: the preset's workflow, the job's values, a batch folder."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

from core.batch.workflow import build_workflow
from core.comfy import LEDGER_MARK

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.ledger import Ledger

OUTPUT_ROOT = "batchline"
LEDGER_ID_KEY = "ledger.id"


def prompt_for(
    api_workflow: Mapping[str, Any], params: Mapping[str, Any], batch_id: str
) -> dict[str, Any]:
    """The workflow for one attempt, rebuilt deterministically from the stored pieces.

    Every literal ``filename_prefix`` is put under ``batchline/<batch>/``: ComfyUI's SaveImage
    scans the whole folder it saves into on every save, so one folder per batch keeps large
    batches fast and keeps batches apart on the server.
    """
    prompt = build_workflow(api_workflow, params)
    for node in prompt.values():
        inputs = node.get("inputs", {})
        prefix = inputs.get("filename_prefix")
        if isinstance(prefix, str):
            inputs["filename_prefix"] = f"{OUTPUT_ROOT}/{batch_id}/{prefix.lstrip('/')}"
    return prompt


def ledger_id(ledger: Ledger, *, create: bool = True) -> str | None:
    """This ledger's own random id, made on first use (``create``) and kept in its settings."""
    known = ledger.settings.get(LEDGER_ID_KEY)
    if isinstance(known, str) and known:
        return known
    if not create:
        return None
    made = uuid.uuid4().hex
    ledger.settings.set(LEDGER_ID_KEY, made)
    return made


def extra_data(editor_workflow: Mapping[str, Any] | None, ledger: str) -> dict[str, Any]:
    """``extra_data`` for ``POST /prompt``: the mark of the ``ledger`` that sends it (the
    orphan sweep tells our prompts by it), and the editor graph for the PNGs ComfyUI writes."""
    extra: dict[str, Any] = {LEDGER_MARK: ledger}
    if editor_workflow:
        extra["extra_pnginfo"] = {"workflow": dict(editor_workflow)}
    return extra

"""The exact prompt an attempt sends: the preset's workflow, the job's values, a batch folder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.batch import build_workflow

if TYPE_CHECKING:
    from collections.abc import Mapping

OUTPUT_ROOT = "batchline"


def prompt_for(
    api_workflow: Mapping[str, Any], params: Mapping[str, Any], batch_id: str
) -> dict[str, Any]:
    """The workflow for one attempt, rebuilt deterministically from the stored pieces.

    Every literal ``filename_prefix`` is put under ``batchline/<batch>/``: ComfyUI's SaveImage
    scans the whole folder it saves into on every save, so one folder per batch keeps large
    batches fast (protocol notes 13.10) and keeps batches apart on the server.
    """
    prompt = build_workflow(api_workflow, params)
    for node in prompt.values():
        inputs = node.get("inputs", {})
        prefix = inputs.get("filename_prefix")
        if isinstance(prefix, str):
            inputs["filename_prefix"] = f"{OUTPUT_ROOT}/{batch_id}/{prefix.lstrip('/')}"
    return prompt


def extra_data(editor_workflow: Mapping[str, Any] | None) -> dict[str, Any]:
    """``extra_data`` for ``POST /prompt``: the editor graph goes into the PNGs ComfyUI writes."""
    if not editor_workflow:
        return {}
    return {"extra_pnginfo": {"workflow": dict(editor_workflow)}}

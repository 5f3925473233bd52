"""A finished job's output summary as ComfyUI's ``comfy_execution/jobs.py`` computes it."""

from __future__ import annotations

from typing import Any

PREVIEWABLE = frozenset({"images", "video", "audio", "3d", "text"})
TEXT_PREVIEW_MAX = 1024


def outputs_summary(outputs: dict[str, Any]) -> tuple[int, int, dict[str, Any] | None]:
    """(outputs_count, previewable_outputs_count, preview_output) of a history ``outputs``.

    Only dict items of list values count (``animated`` flags and text strings do not); the
    preview is the first previewable item of type ``output``, else the first previewable one,
    else the first text string.
    """
    count = previewable = 0
    saved = fallback = text = None
    for node_id, ui in outputs.items():
        for media, items in ui.items():
            if media == "animated" or not isinstance(items, list):
                continue
            for item in items:
                if not isinstance(item, dict):
                    if media == "text" and isinstance(item, str) and text is None:
                        text = _text_preview(item, node_id)
                    continue
                count += 1
                if media not in PREVIEWABLE:
                    continue
                previewable += 1
                enriched = {"mediaType": media, **item, "nodeId": node_id}
                if item.get("type") == "output" and saved is None:
                    saved = enriched
                elif fallback is None:
                    fallback = enriched
    return count, previewable, saved or fallback or text


def _text_preview(value: str, node_id: str) -> dict[str, Any]:
    preview: dict[str, Any] = {"content": value[:TEXT_PREVIEW_MAX]}
    if len(value) > TEXT_PREVIEW_MAX:
        preview["truncated"] = True
    return {**preview, "nodeId": node_id, "mediaType": "text"}

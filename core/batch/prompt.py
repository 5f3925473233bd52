"""The exact prompt an attempt sends: the preset's workflow, the job's values, a batch folder."""

from __future__ import annotations

import posixpath
import uuid
from typing import TYPE_CHECKING, Any

from core.batch.workflow import build_workflow
from core.comfy import LEDGER_MARK, ImageRef
from core.errors import CompositionError
from core.inputs import picture_params
from core.ledger.watch import LEDGER_ID_KEY

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.ledger import Ledger

OUTPUT_ROOT = "batchline"


def prompt_for(
    api_workflow: Mapping[str, Any],
    params: Mapping[str, Any],
    batch_id: str,
    prompt_id: str | None = None,
    pictures: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The workflow for one attempt, rebuilt deterministically from the stored pieces.

    ``pictures`` (sha256 -> value) says what the attempt's server calls each input picture
    (``batchline/<the name it returned on upload>``): each picture value of ``params`` is
    replaced by it. Without it the picture values are left as stored (a prompt only read for
    its outputs' names, never sent).

    Every literal ``filename_prefix`` is put under ``batchline/<batch>/`` (and, for an
    attempt, ``<prompt_id>/`` below it): ComfyUI's SaveImage scans the whole folder it saves
    into on every save, so one folder per batch keeps large batches fast and keeps batches
    apart on the server; one per attempt names its pictures before it runs, so they can be
    found on the server after a restart has wiped its history (``expected_outputs``).
    """
    if pictures is not None:
        params = {**params, **_placed_pictures(params, pictures)}
    prompt = build_workflow(api_workflow, params)
    folder = f"{OUTPUT_ROOT}/{batch_id}/" + (f"{prompt_id}/" if prompt_id else "")
    for node in prompt.values():
        inputs = node.get("inputs", {})
        prefix = inputs.get("filename_prefix")
        if isinstance(prefix, str):
            inputs["filename_prefix"] = folder + prefix.lstrip("/")
    return prompt


def _placed_pictures(params: Mapping[str, Any], pictures: Mapping[str, str]) -> dict[str, str]:
    """Each picture value of ``params`` as the server names it (``pictures``: sha256 -> value).

    Raises:
        CompositionError: a picture the server has no name for (not uploaded there).
    """
    placed = {}
    for key, ref in picture_params(params).items():
        value = pictures.get(ref.sha256)
        if value is None:
            raise CompositionError(f"input {key}: the picture {ref.file} is not on this server")
        placed[key] = value
    return placed


def expected_outputs(prompt: Mapping[str, Any], index: int) -> list[ImageRef]:
    """The ``index``-th picture (1, 2, ...) each SaveImage node of an attempt's ``prompt``
    would write, as ComfyUI names it: ``<prefix>_<index:05>_.png`` in the prefix's folder,
    numbered from 1 in a folder of its own. A prefix with ComfyUI's ``%`` tokens (dates,
    sizes) names no file beforehand: such a node is left out."""
    refs = []
    for node_id, node in prompt.items():
        prefix = node.get("inputs", {}).get("filename_prefix")
        if node.get("class_type") != "SaveImage" or not isinstance(prefix, str) or "%" in prefix:
            continue
        path = posixpath.normpath(prefix)
        name = f"{posixpath.basename(path)}_{index:05}_.png"
        refs.append(ImageRef(name, posixpath.dirname(path), "output", str(node_id)))
    return refs


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

"""Storing a loaded preset in the ledger under a name, and a stored one's summary: for
`batchline preset add|list` and the HTTP API alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.ledger import PresetContent
from core.ledger.job_json import iso
from core.presets.checks import check_name, escape_invalid
from core.presets.composer_state import (
    forget_composer_state,
    load_composer_state,
    save_composer_state,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from core.ledger import Ledger, PresetOutcome, PresetRecord
    from core.presets.model import Preset


@dataclass(frozen=True)
class Stored:
    """What storing did, and another name the same workflow is stored under (if any)."""

    outcome: PresetOutcome
    also_named: str | None


def store_preset(
    ledger: Ledger,
    name: str,
    preset: Preset,
    seed_inputs: Sequence[str] | None = None,
    *,
    replace: bool = False,
    hint: str = "",
    requester: str | None = None,
) -> Stored:
    """Store ``preset`` as ``name``, for the API ``requester`` (None: the artist, locally);
    ``seed_inputs``, when chosen by hand, are remembered for its batches.

    Raises:
        InputError: the name is not valid text (``hint`` says how to choose another), or is
            taken by other content and ``replace`` is false.
        NotYours: the name is a preset ``requester`` may not change (another owner's).
    """
    check_name(name, hint)
    presets = ledger.presets if requester is None else ledger.presets_for(requester)
    also = next((r.name for r in presets.all() if r.workflow_hash == preset.content_hash), None)
    outcome = presets.add(name, preset_content(preset, seed_inputs), replace=replace)
    return Stored(outcome, also if also != name else None)


def preset_content(preset: Preset, seed_inputs: Sequence[str] | None) -> PresetContent:
    """What the ledger stores of a loaded preset (and of the seed inputs chosen by hand)."""
    info: dict[str, Any] = {"format": preset.format.value, "notices": list(preset.notices)}
    if seed_inputs:
        info["seed_inputs"] = [str(seed.ref) for seed in preset.seed_inputs]
    return PresetContent(
        workflow_hash=preset.content_hash,
        api_workflow=preset.api_workflow,
        editor_workflow=preset.editor_workflow,
        source=escape_invalid(str(preset.source)),
        info=info,
    )


def free_name(taken: Iterable[str], base: str) -> str:
    """`base`, else `base (2)`, `base (3)`, ...: the first name not taken (whatever its case)."""
    used = {name.casefold() for name in taken}
    name, number = base, 1
    while name.casefold() in used:
        number += 1
        name = f"{base} ({number})"
    return name


def rename_preset(ledger: Ledger, name: str, new_name: str) -> None:
    """Rename a stored preset; what the composer keeps for it follows.

    Raises:
        InputError: the new name is not valid text, or is another preset's.
    """
    check_name(new_name, "choose another name")
    ledger.presets.rename(name, new_name)
    state = load_composer_state(ledger, name)
    if state is not None and new_name != name:
        save_composer_state(ledger, new_name, state)
        forget_composer_state(ledger, name)


def duplicate_preset(ledger: Ledger, name: str) -> str:
    """Store a copy of preset `name` (its composer state too) under a free name; returns it."""
    copy = free_name(ledger.presets.names(), f"{name} copy")
    copy_preset(ledger, name, ledger, copy)
    return copy


def copy_preset(source: Ledger, name: str, target: Ledger, new_name: str) -> None:
    """Store `source`'s preset `name` as `new_name` in `target` (the same ledger or another),
    with what the composer keeps for it."""
    record = source.presets.get(name)
    content = PresetContent(
        workflow_hash=record.workflow_hash,
        api_workflow=record.api_workflow,
        editor_workflow=record.editor_workflow,
        source=record.source,
        info=record.info,
    )
    target.presets.add(new_name, content)
    state = load_composer_state(source, name)
    if state is not None:
        save_composer_state(target, new_name, state)


def remove_preset(ledger: Ledger, name: str) -> None:
    """Forget a stored preset and what the composer kept for it."""
    ledger.presets.remove(name)
    forget_composer_state(ledger, name)


def preset_summary(record: PresetRecord) -> dict[str, Any]:
    """A stored preset as JSON, without its workflow."""
    return {
        "name": record.name,
        "workflow_hash": record.workflow_hash,
        "source": record.source,
        "nodes": len(record.api_workflow),
        "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at),
        "stored_by": record.stored_by.json(),
        "changed_by": record.changed_by.json(),
    }

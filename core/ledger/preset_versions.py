"""A preset's versions: every content it has held, numbered from 1, with who made each and
where it came from. `PresetStore` writes them (a new one on each change of content); restoring
an old one makes it current again as a new version, so nothing is ever lost."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from peewee import fn

from core.ledger import schema
from core.ledger.owners import Actor

if TYPE_CHECKING:
    from core.ledger.records import JsonValue


@dataclass(frozen=True, slots=True)
class PresetVersionRecord:
    """One content a preset held: its number (from 1), when and by whom it was stored, and
    where it came from (``origin``: e.g. the ComfyUI address it was sent from; "" if unknown)."""

    number: int
    workflow_hash: str
    editor_workflow: dict[str, JsonValue] | None
    source: str
    info: dict[str, JsonValue]
    created_at: float
    stored_by: Actor
    origin: str


def add_version(preset: schema.Preset, now: float, by: str, origin: str) -> int:
    """Record ``preset``'s current content as its next version (in the caller's transaction);
    returns its number."""
    last = (
        schema.PresetVersion.select(fn.MAX(schema.PresetVersion.number))
        .where(schema.PresetVersion.preset == preset.id)
        .scalar()
    )
    number = int(last or 0) + 1
    schema.PresetVersion.create(
        preset=preset.id,
        number=number,
        workflow=preset.workflow_hash,
        editor_json=preset.editor_json,
        source=preset.source,
        info_json=preset.info_json,
        created_at=now,
        stored_by=by,
        origin=origin,
    )
    return number


def versions_of(preset: schema.Preset) -> list[PresetVersionRecord]:
    """The preset's versions, oldest first (in the caller's read)."""
    query = (
        schema.PresetVersion.select()
        .where(schema.PresetVersion.preset == preset.id)
        .order_by(schema.PresetVersion.number)
    )
    return [_record(row) for row in query]


def latest_number(preset: schema.Preset) -> int:
    """The number of the preset's current version (0 for a preset stored before versions)."""
    last = (
        schema.PresetVersion.select(fn.MAX(schema.PresetVersion.number))
        .where(schema.PresetVersion.preset == preset.id)
        .scalar()
    )
    return int(last or 0)


def version_row(preset: schema.Preset, number: int) -> schema.PresetVersion | None:
    return schema.PresetVersion.get_or_none(
        schema.PresetVersion.preset == preset.id, schema.PresetVersion.number == number
    )


def _record(row: schema.PresetVersion) -> PresetVersionRecord:
    return PresetVersionRecord(
        number=row.number,
        workflow_hash=row.workflow_hash,
        editor_workflow=json.loads(row.editor_json) if row.editor_json else None,
        source=row.source,
        info=json.loads(row.info_json),
        created_at=row.created_at,
        stored_by=Actor.from_key(row.stored_by),
        origin=row.origin,
    )

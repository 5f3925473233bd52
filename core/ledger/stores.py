"""The ledger's smaller tables: presets (each with its owner) and settings."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from core.errors import InputError, NotYours, SettingError, UnknownRecord
from core.ledger import schema
from core.ledger.owners import LOCAL, Actor
from core.ledger.preset_versions import (
    PresetVersionRecord,
    add_version,
    latest_number,
    version_row,
    versions_of,
)
from core.ledger.records import PresetRecord
from core.names import checked_name

if TYPE_CHECKING:
    from core.ledger.handle import LedgerHandle


class PresetOutcome(StrEnum):
    created = "created"
    replaced = "replaced"
    unchanged = "unchanged"


@dataclass(frozen=True)
class PresetContent:
    """What a preset stores: its API workflow (by hash), editor graph, source and learned info."""

    workflow_hash: str
    api_workflow: dict[str, Any]
    editor_workflow: dict[str, Any] | None = None
    source: str = ""
    info: dict[str, Any] | None = None
    origin: str = ""  # where it came from (the ComfyUI address it was sent from), if known


@dataclass(frozen=True)
class Placed:
    """Where `PresetStore.add_own` stored content: the name, what it did, the version."""

    name: str
    outcome: PresetOutcome
    version: int


class PresetStore:
    """Presets by unique name; each API workflow is stored once, by content hash.

    The store acts for one ``actor`` and holds its rule where the writes happen: the artist
    (locally: the command line, the window) sees and changes every preset; an API requester
    sees the artist's and its own, and changes (replaces, renames, removes) only its own. A
    name is one preset whoever owns it, so a requester never stores into another's name.
    """

    def __init__(self, handle: LedgerHandle, actor: Actor) -> None:
        self._handle = handle
        self.actor = actor

    def add(self, name: str, content: PresetContent, *, replace: bool = False) -> PresetOutcome:
        """Store ``content`` under ``name``; replacing keeps the old content as a version.

        Raises:
            InputError: the name is taken by different content and ``replace`` is false.
            NotYours: the name is another owner's preset and the actor may not change it.
        """
        checked_name(name, "a preset")
        with self._handle.tx():
            return self._put(name, content, replace=replace)

    def add_own(self, name: str, content: PresetContent) -> Placed:
        """Store ``content`` as the actor's preset ``name``: a new version of its own preset of
        that name, or, when the name is another owner's, under the first free name (or own
        one) of ``name (2)``, ``name (3)``, ...: another's preset is never overwritten."""
        checked_name(name, "a preset")
        with self._handle.tx():
            chosen, number = name, 1
            while True:
                row = schema.Preset.get_or_none(schema.Preset.name == chosen)
                if row is None or self._may_change(row):
                    break
                number += 1
                chosen = f"{name} ({number})"
            outcome = self._put(chosen, content, replace=True)
            version = latest_number(schema.Preset.get(schema.Preset.name == chosen))
            return Placed(chosen, outcome, version)

    def _put(self, name: str, content: PresetContent, *, replace: bool) -> PresetOutcome:
        now = self._handle.now()
        editor = json.dumps(content.editor_workflow) if content.editor_workflow else None
        existing = schema.Preset.get_or_none(schema.Preset.name == name)
        if existing:
            self._check_may_change(existing)
        if existing and existing.workflow_hash == content.workflow_hash:
            return PresetOutcome.unchanged
        if existing and not replace:
            raise InputError(
                f"a preset named {name!r} already exists with other content; "
                "use --replace to overwrite it"
            )
        _store_workflow(content)
        fields = {
            "workflow": content.workflow_hash,
            "editor_json": editor,
            "source": content.source,
            "info_json": json.dumps(content.info or {}),
            "updated_at": now,
            "changed_by": self.actor.key,
        }
        if existing:
            schema.Preset.update(**fields).where(schema.Preset.id == existing.id).execute()
            outcome = PresetOutcome.replaced
        else:
            schema.Preset.create(name=name, created_at=now, stored_by=self.actor.key, **fields)
            outcome = PresetOutcome.created
        add_version(
            schema.Preset.get(schema.Preset.name == name), now, self.actor.key, content.origin
        )
        return outcome

    def versions(self, name: str) -> list[PresetVersionRecord]:
        """The preset's versions, oldest first.

        Raises:
            UnknownRecord: no such preset the actor may see.
        """
        with self._handle.read():
            return versions_of(self.row(name))

    def version(self, name: str) -> int:
        """The number of the preset's current version."""
        with self._handle.read():
            return latest_number(self.row(name))

    def restore(self, name: str, number: int) -> tuple[PresetOutcome, int]:
        """Make version ``number`` current again, as a new version (``unchanged`` when it is
        the current content already); returns what it did and the current version's number.

        Raises:
            UnknownRecord: no such preset the actor may see, or no such version.
            NotYours: the preset is another owner's and the actor may not change it.
        """
        with self._handle.tx():
            row = self.row(name)
            self._check_may_change(row)
            old = version_row(row, number)
            if old is None:
                have = latest_number(row)
                raise UnknownRecord(f"preset {name!r} has no version {number} (it has 1 to {have})")
            if old.workflow_hash == row.workflow_hash and old.editor_json == row.editor_json:
                return PresetOutcome.unchanged, latest_number(row)
            now = self._handle.now()
            row.workflow = old.workflow  # the same stored workflow: nothing copied
            row.editor_json = old.editor_json
            row.source = old.source
            row.info_json = old.info_json
            row.updated_at = now
            row.changed_by = self.actor.key
            row.save()
            origin = f"version {number}"
            return PresetOutcome.replaced, add_version(row, now, self.actor.key, origin)

    def row(self, name: str) -> schema.Preset:
        """The preset ``name`` if the actor may see it.

        Raises:
            UnknownRecord: no such preset the actor may see.
        """
        row = schema.Preset.get_or_none(schema.Preset.name == name, self._visible())
        if row is None:
            raise UnknownRecord(f"no preset named {name!r}")
        return row

    def get(self, name: str) -> PresetRecord:
        with self._handle.read():
            return _preset_record(self.row(name))

    def names(self) -> list[str]:
        """The presets' names the actor may see, sorted whatever their case."""
        with self._handle.read():
            query = schema.Preset.select(schema.Preset.name).where(self._visible())
            return sorted((r.name for r in query), key=_order)

    def all(self) -> list[PresetRecord]:
        with self._handle.read():
            records = [_preset_record(r) for r in schema.Preset.select().where(self._visible())]
        return sorted(records, key=lambda record: _order(record.name))

    def rename(self, name: str, new_name: str) -> None:
        """Call the preset ``name`` ``new_name`` (its batches keep the name they were made with).

        Raises:
            InputError: the new name breaks a rule (``checked_name``) or is another preset's.
            NotYours: the preset is another owner's and the actor may not change it.
            UnknownRecord: no preset the actor may see is called ``name``.
        """
        checked_name(new_name, "a preset")
        with self._handle.tx():
            row = self.row(name)
            self._check_may_change(row)
            if new_name != name and schema.Preset.get_or_none(schema.Preset.name == new_name):
                raise InputError(f"a preset named {new_name!r} already exists")
            row.name = new_name
            row.updated_at = self._handle.now()
            row.changed_by = self.actor.key
            row.save()

    def remove(self, name: str) -> None:
        """Forget the preset; batches made from it keep their stored workflow.

        Raises:
            NotYours: the preset is another owner's and the actor may not change it.
            UnknownRecord: no preset the actor may see is called ``name``.
        """
        with self._handle.tx():
            row = self.row(name)
            self._check_may_change(row)
            row.delete_instance()

    def _visible(self) -> Any:
        """The presets the actor sees: all for the artist; the artist's and its own for an API
        requester (another requester's presets are not even listed)."""
        if self.actor.local:
            return True
        artist = schema.Preset.stored_by.startswith(f"{LOCAL}:")
        return artist | (schema.Preset.stored_by == self.actor.key)

    def _may_change(self, row: schema.Preset) -> bool:
        """The artist changes any preset, locally; an API requester only those it stored."""
        return self.actor.local or row.stored_by == self.actor.key

    def _check_may_change(self, row: schema.Preset) -> None:
        """Raise NotYours unless the actor may change ``row`` (`_may_change`)."""
        if self._may_change(row):
            return
        owner = Actor.from_key(row.stored_by)
        whose = f"the artist's ({owner.name}, changed only on that computer)"
        if not owner.local:
            whose = "another requester's"
        raise NotYours(
            f"preset {row.name!r} is not yours: it is {whose}; store yours under another name"
        )


def _order(name: str) -> tuple[str, str]:
    return name.casefold(), name


def _store_workflow(content: PresetContent) -> None:
    api = json.dumps(content.api_workflow, sort_keys=True)
    schema.Workflow.insert(hash=content.workflow_hash, api_json=api).on_conflict_ignore().execute()


def _preset_record(row: schema.Preset) -> PresetRecord:
    return PresetRecord(
        name=row.name,
        workflow_hash=row.workflow_hash,
        api_workflow=json.loads(row.workflow.api_json),
        editor_workflow=json.loads(row.editor_json) if row.editor_json else None,
        source=row.source,
        info=json.loads(row.info_json),
        created_at=row.created_at,
        updated_at=row.updated_at,
        stored_by=Actor.from_key(row.stored_by),
        changed_by=Actor.from_key(row.changed_by),
    )


# The pause flag's key: `core.ledger.settings.PAUSED` reads and writes it, and ``submit_attempt``
# reads it inside its own transaction, where the rule "nothing is sent while paused" holds.
DISPATCH_PAUSED = "dispatch.paused"


def dispatch_paused() -> bool:
    """Whether dispatch is paused, read in the caller's transaction.

    Raises:
        SettingError: the flag is not true, false or null: nothing is sent on a guess.
    """
    row = schema.database_proxy.execute_sql(_SETTING, (DISPATCH_PAUSED,)).fetchone()
    paused = _decoded(DISPATCH_PAUSED, row[0]) if row else None
    if paused is not None and not isinstance(paused, bool):
        raise SettingError(DISPATCH_PAUSED, row[0], "it must be true or false")
    return bool(paused)


def _decoded(key: str, text: str) -> Any:
    """A stored setting's JSON; SettingError when it is not JSON (a hand-edited ledger)."""
    try:
        return json.loads(text)
    except ValueError:
        raise SettingError(key, repr(text), "it is not JSON") from None


class SettingsStore:
    """Settings shared by the GUI and the CLI, as JSON values by key."""

    def __init__(self, handle: LedgerHandle) -> None:
        self._handle = handle

    def get(self, key: str, default: Any = None) -> Any:
        with self._handle.read():  # a plain statement: the controller reads some every tick
            cursor = self._handle.database.execute_sql(_SETTING, (key,))
            row = cursor.fetchone()
            return _decoded(key, row[0]) if row else default

    def set(self, key: str, value: Any) -> None:
        with self._handle.tx():
            query = schema.Setting.insert(key=key, value_json=json.dumps(value))
            query.on_conflict_replace().execute()

    def all(self) -> dict[str, Any]:
        with self._handle.read():
            return {r.key: _decoded(r.key, r.value_json) for r in schema.Setting.select()}


_SETTING = "SELECT value_json FROM setting WHERE key = ?"

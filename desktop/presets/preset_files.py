"""Adding preset files to the ledger: load, name after the file, store; one error line each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.errors import BatchlineError
from core.ledger import PresetContent, PresetOutcome
from core.presets import Preset, load_preset

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from core.ledger import Ledger

PRESET_SUFFIXES = frozenset({".json", ".png"})


@dataclass(frozen=True)
class AddResult:
    """What became of one file: the preset name it was stored under, or why it was not."""

    path: Path
    name: str | None = None
    error: str | None = None


def add_preset_files(ledger: Ledger, paths: Iterable[Path]) -> list[AddResult]:
    return [add_preset_file(ledger, path) for path in paths]


def add_preset_file(ledger: Ledger, path: Path, seed_inputs: list[str] | None = None) -> AddResult:
    """Load ``path`` and store it under its file name (made unique when the name is taken)."""
    try:
        preset = load_preset(path, seed_inputs=seed_inputs)
        name = _store(ledger, path.stem, preset, seed_inputs)
    except BatchlineError as exc:
        return AddResult(path, error=str(exc))
    except OSError as exc:
        return AddResult(path, error=f"{path.name}: {exc.strerror or exc}")
    return AddResult(path, name=name)


def _store(ledger: Ledger, stem: str, preset: Preset, seed_inputs: list[str] | None) -> str:
    content = PresetContent(
        workflow_hash=preset.content_hash,
        api_workflow=preset.api_workflow,
        editor_workflow=preset.editor_workflow,
        source=str(preset.source),
        info=_info(preset, seed_inputs),
    )
    taken = set(ledger.presets.names())
    for n in range(1, 1000):
        name = stem if n == 1 else f"{stem} ({n})"
        if name in taken and ledger.presets.get(name).workflow_hash != preset.content_hash:
            continue
        if ledger.presets.add(name, content) in (PresetOutcome.created, PresetOutcome.unchanged):
            return name
    raise BatchlineError(f"{stem}: too many presets with this name")


def _info(preset: Preset, seed_inputs: list[str] | None) -> dict[str, Any]:
    info: dict[str, Any] = {"format": preset.format.value, "notices": list(preset.notices)}
    if seed_inputs:
        info["seed_inputs"] = list(seed_inputs)
    return info


def is_preset_file(path: Path) -> bool:
    return path.suffix.lower() in PRESET_SUFFIXES

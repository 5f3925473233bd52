"""Adding preset files to the ledger: load, name after the file, store; one error line each."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from core.errors import BatchlineError
from core.ledger import PresetContent, PresetOutcome
from core.presets import Preset, load_preset

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

    from core.ledger import Ledger

PRESET_SUFFIXES = frozenset({".json", ".png"})


class SameName(Enum):
    """What to do with a file whose name is a preset's with other content."""

    update = "update"  # a new version of that preset (the old one is kept as a version)
    keep_both = "keep_both"  # a new preset under a free name


@dataclass(frozen=True)
class AddResult:
    """What became of one file: the preset name it was stored under, or why it was not;
    ``outcome`` says whether it was new, a new version, or that preset already."""

    path: Path
    name: str | None = None
    error: str | None = None
    outcome: PresetOutcome | None = None


def add_preset_files(
    ledger: Ledger,
    paths: Iterable[Path],
    ask: Callable[[str], SameName | None] | None = None,
) -> list[AddResult]:
    return [add_preset_file(ledger, path, ask=ask) for path in paths]


def add_preset_file(
    ledger: Ledger,
    path: Path,
    seed_inputs: list[str] | None = None,
    ask: Callable[[str], SameName | None] | None = None,
) -> AddResult:
    """Load ``path`` and store it under its file name. When that is a preset's with other
    content, ``ask`` chooses: update it (a new version) or keep both (a free name); without
    ``ask``, both are kept. The same content again is that preset (``unchanged``)."""
    try:
        preset = load_preset(path, seed_inputs=seed_inputs)
        name, outcome = _store(ledger, path.stem, preset, seed_inputs, ask)
    except BatchlineError as exc:
        return AddResult(path, error=str(exc))
    except OSError as exc:
        return AddResult(path, error=f"{path.name}: {exc.strerror or exc}")
    return AddResult(path, name=name, outcome=outcome)


def _store(
    ledger: Ledger,
    stem: str,
    preset: Preset,
    seed_inputs: list[str] | None,
    ask: Callable[[str], SameName | None] | None,
) -> tuple[str | None, PresetOutcome | None]:
    content = PresetContent(
        workflow_hash=preset.content_hash,
        api_workflow=preset.api_workflow,
        editor_workflow=preset.editor_workflow,
        source=str(preset.source),
        info=_info(preset, seed_inputs),
    )
    taken = set(ledger.presets.names())
    same = next((n for n in ledger.presets.all() if n.workflow_hash == preset.content_hash), None)
    if stem in taken and ledger.presets.get(stem).workflow_hash != preset.content_hash:
        if same is not None:
            return same.name, PresetOutcome.unchanged  # dropped before, kept under that name
        choice = ask(stem) if ask is not None else SameName.keep_both
        if choice is None:
            return None, None
        if choice is SameName.update:
            return stem, ledger.presets.add(stem, content, replace=True)
    for n in range(1, 1000):
        name = stem if n == 1 else f"{stem} ({n})"
        if name in taken and ledger.presets.get(name).workflow_hash != preset.content_hash:
            continue
        outcome = ledger.presets.add(name, content)
        if outcome in (PresetOutcome.created, PresetOutcome.unchanged):
            return name, outcome
    raise BatchlineError(f"{stem}: too many presets with this name")


def _info(preset: Preset, seed_inputs: list[str] | None) -> dict[str, Any]:
    info: dict[str, Any] = {"format": preset.format.value, "notices": list(preset.notices)}
    if seed_inputs:
        info["seed_inputs"] = list(seed_inputs)
    return info


def is_preset_file(path: Path) -> bool:
    return path.suffix.lower() in PRESET_SUFFIXES

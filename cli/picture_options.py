"""The pictures `batchline queue` is given: ``--images NODE.INPUT=DIR_OR_GLOB`` (one job per
picture) and ``--set NODE.INPUT=@picture.png`` (one picture for every job), each file checked
and kept in Batchline's picture store (``core.inputs.PictureStore``) as a job value.

``@`` names a picture file only for an input that takes an uploaded picture
(``Catalogue.picture_inputs``: LoadImage's ``image``); any other input keeps the text as it is.
A refused file is named in one line and nothing is queued; the pictures checked before it stay
kept in the store (content-addressed copies, which a later batch of them reuses).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.arg_types import PictureAxis
from core.batch.spec import GridAxis
from core.batch.values import parse_assignment
from core.catalogue import Catalogue
from core.errors import InputError
from core.inputs import PictureRef, PictureStore

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from core.batch.spec import BatchSpec
    from core.ledger import Ledger

PICTURE_FILE = "@"  # --set NODE.INPUT=@picture.png


def placeholder_axes(grid: Sequence[GridAxis | PictureAxis]) -> tuple[GridAxis, ...]:
    """The axes with each picture axis's files as text: enough to check which options go
    together before any picture is read."""
    return tuple(
        GridAxis(axis.input, tuple(map(str, axis.paths))) if isinstance(axis, PictureAxis) else axis
        for axis in grid
    )


class PictureOptions:
    """The picture inputs of preset ``preset_name`` and the store their files are kept in;
    ``keep=False`` (a dry run) checks each file and keeps nothing."""

    def __init__(self, ledger: Ledger, preset_name: str, *, keep: bool = True) -> None:
        api = ledger.presets.get(preset_name).api_workflow
        self.inputs = Catalogue.bundled().picture_inputs(api)
        self.store = PictureStore.of(ledger)
        self.keep = keep

    def axes(self, grid: Sequence[GridAxis | PictureAxis]) -> tuple[GridAxis, ...]:
        """Each ``--images`` axis as an axis over its pictures' values, in its place.

        Raises:
            InputError: the input takes no picture, or a file is refused (naming it).
        """
        return tuple(
            self._picture_axis(axis) if isinstance(axis, PictureAxis) else axis for axis in grid
        )

    def overrides(self, texts: Sequence[str]) -> tuple[str, ...] | dict[str, Any]:
        """The ``--set`` texts, with ``@FILE`` on a picture input made that picture's value
        (then as a mapping, in order; the texts as they are when none is)."""
        pairs = [parse_assignment(text) for text in texts]
        if not any(self._is_file(str(ref), raw) for ref, raw in pairs):
            return tuple(texts)
        return {
            str(ref): self._picture(Path(raw[1:]).expanduser()).to_param()
            if self._is_file(str(ref), raw)
            else raw
            for ref, raw in pairs
        }

    def _is_file(self, key: str, raw: str) -> bool:
        return raw.startswith(PICTURE_FILE) and key in self.inputs

    def _picture_axis(self, axis: PictureAxis) -> GridAxis:
        if axis.input not in self.inputs:
            takes = ", ".join(self.inputs) or "none"
            raise InputError(
                f"--images {axis.input}: not an input that takes a picture file "
                f"(the preset's that do: {takes})"
            )
        return GridAxis(axis.input, tuple(self._picture(path).to_param() for path in axis.paths))

    def _picture(self, path: Path) -> PictureRef:
        return self.store.add(path) if self.keep else self.store.check(path)


def spec_pictures(spec: BatchSpec) -> dict[str, list[PictureRef]]:
    """The pictures a batch spec sets, by input (``NODE.INPUT``): an override's one, an axis's
    each in its order."""
    found: dict[str, list[PictureRef]] = {}
    overrides: Mapping[str, Any] = spec.overrides if not isinstance(spec.overrides, tuple) else {}
    for key, value in overrides.items():
        _add(found, key, [value])
    for axis in spec.grid:
        _add(found, axis.input, axis.values)
    return found


def _add(found: dict[str, list[PictureRef]], key: str, values: Iterable[Any]) -> None:
    refs = [ref for ref in map(PictureRef.from_param, values) if ref is not None]
    if refs:
        found.setdefault(key, []).extend(refs)


def picture_lines(pictures: Mapping[str, list[PictureRef]]) -> list[str]:
    """Per input, how many pictures and each one's source: what a dry run shows."""
    lines = []
    for key, refs in pictures.items():
        count = f"{len(refs)} picture{'s' if len(refs) != 1 else ''}"
        lines.append(f"{key}: {count}")
        lines += [f"  {ref.source}" for ref in refs]
    return lines

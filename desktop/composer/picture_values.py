"""The composer's pictures made job values at Queue: each file read once and kept in
Batchline's picture store (``PictureStore.add``), its ``PictureRef.to_param()`` the value.
A file refused (missing, not a picture, too large ...) stops the whole batch, named."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.batch import BatchSpec, GridAxis

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.inputs.picture_store import PictureStore


def with_pictures(
    spec: BatchSpec,
    store: PictureStore,
    pictures: Mapping[str, str],
    picture_axes: frozenset[str],
) -> BatchSpec:
    """``spec`` with the chosen pictures (``NODE.INPUT -> path``) as overrides and the paths
    of the picture axes as picture values.

    Raises:
        InputError: a file is refused (the message names it); nothing is queued then.
    """
    added: dict[str, dict[str, Any]] = {}

    def value(path: str) -> dict[str, Any]:
        if path not in added:  # a file on two inputs is read once
            added[path] = store.add(Path(path)).to_param()
        return added[path]

    overrides = dict(spec.overrides) if not isinstance(spec.overrides, tuple) else {}
    overrides |= {ref: value(path) for ref, path in pictures.items() if ref not in picture_axes}
    grid = tuple(
        GridAxis(axis.input, tuple(value(str(v)) for v in axis.values))
        if axis.input in picture_axes
        else axis
        for axis in spec.grid
    )
    return replace(spec, overrides=overrides, grid=grid)

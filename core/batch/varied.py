"""What a batch's jobs vary and what they all share, gathered job by job: the jobs table's
value columns and its batch line ("steps 30 · cfg 7 (all 40)")."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from core.catalogue import Catalogue
from core.inputs import PictureRef
from core.presets.input_names import input_names, names_of
from core.presets.seeds import SEED_NAMES

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from core.ledger import Ledger


def input_name(key: str) -> str:
    """``3.seed`` → ``seed``: the input a ``NODE_ID.INPUT`` key sets."""
    return key.partition(".")[2] or key


def is_seed(key: str) -> bool:
    return input_name(key) in SEED_NAMES


def input_labels(keys: Iterable[str]) -> dict[str, str]:
    """Each ``NODE_ID.INPUT`` key named by its input alone, or in full where two keys share an
    input name (``3.seed`` and ``9.seed``)."""
    keys = list(keys)
    counts = Counter(input_name(key) for key in keys)
    return {key: input_name(key) if counts[input_name(key)] == 1 else key for key in keys}


def workflow_input_names(ledger: Ledger, batch_id: str) -> dict[str, str]:
    """Every input of the batch's workflow, ``NODE_ID.INPUT``, named as the composer names
    it (``core.presets.input_names``, by the bundled catalogue)."""
    batch = ledger.batch(batch_id)
    return input_names(ledger.workflow(batch.workflow_hash), Catalogue.bundled())


def batch_input_names(ledger: Ledger, batch_id: str, keys: Iterable[str]) -> dict[str, str]:
    """Each ``NODE_ID.INPUT`` key named as the composer names it in the batch's workflow
    ("Positive prompt (base) · text", ``core.presets.input_names``; by the bundled catalogue,
    so no server is needed); a key the workflow lacks by itself."""
    batch = ledger.batch(batch_id)
    return names_of(keys, ledger.workflow(batch.workflow_hash), Catalogue.bundled())


def value_text(value: Any, colour: bool = False) -> str:
    """A value in full, as it is sent: ``1234567890123``, ``7.5``, ``euler``, ``true``; an
    integer input shown as a colour (``colour``) as ``#RRGGBB``, as the composer shows it; a
    picture (``core.inputs.PictureRef``) by its file's name, ``render_003.png``.

    For people only: the text is not the value (a picture's name does not say which bytes),
    so nothing turns it back into one."""
    if isinstance(value, str):
        return value
    picture = PictureRef.from_param(value)
    if picture is not None:
        return picture.file
    if colour and isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return f"#{value:06X}"
    return json.dumps(value, ensure_ascii=False)


def short_text(value: Any, colour: bool = False, limit: int = 24) -> str:
    """``value_text`` cut at ``limit`` characters, for a label."""
    text = value_text(value, colour)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def batch_colours(ledger: Ledger, batch_id: str) -> frozenset[str]:
    """The inputs of the batch's workflow shown as colours (by the bundled catalogue: what a
    picture's labels say needs no server)."""
    batch = ledger.batch(batch_id)
    return Catalogue.bundled().colour_inputs(ledger.workflow(batch.workflow_hash))


def value_order(value: Any) -> tuple[int, Any]:
    """A sort key: numbers by their value (seed 9 before seed 10), then text, then no value."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return 0, value
    if value is None:
        return 2, ""
    return 1, value_text(value)


class BatchValues:
    """One batch's jobs' values, one job at a time: the inputs that vary between them, and the
    values they all share."""

    def __init__(self) -> None:
        self.jobs = 0
        self.varied: set[str] = set()
        self._first: dict[str, Any] = {}

    @classmethod
    def of(cls, jobs: Iterable[Mapping[str, Any]]) -> BatchValues:
        """The values of these jobs' params, all at once."""
        values = cls()
        for params in jobs:
            values.add(params)
        return values

    def add(self, params: Mapping[str, Any]) -> bool:
        """Count one more job of the batch; True when an input starts to vary with it."""
        self.jobs += 1
        if self.jobs == 1:
            self._first = dict(params)
            return False
        before = len(self.varied)
        first, varied = self._first, self.varied
        for key, value in params.items():
            if key not in varied and (key not in first or not _same(first[key], value)):
                varied.add(key)
        if params.keys() != first.keys():
            varied.update(key for key in first if key not in params)
        return len(varied) != before

    def columns(self) -> set[str]:
        """The inputs each job shows on its own: those that vary, and its seeds always."""
        return self.varied | {key for key in self._first if is_seed(key)}

    def shared(self) -> dict[str, Any]:
        """The values every job of the batch sets alike (its seeds aside)."""
        return {
            key: value
            for key, value in self._first.items()
            if key not in self.varied and not is_seed(key)
        }


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b

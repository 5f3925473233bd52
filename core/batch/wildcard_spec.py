"""Wildcards in a batch: the text inputs whose wildcards Batchline resolves, "all" inputs turned
into axes (`expand_spec`), and each job's random texts, seeded by the job's seed.

A prompt's text (an input ComfyUI's catalogue marks ``dynamicPrompts``, as the frontend
expands: CLIPTextEncode's ``text``..., or a multi-line text) holding wildcard syntax is resolved
before anything is sent, from the preset's literal, an override or an axis value; any other text
input only when the batch names it in ``wildcards`` (a custom node's JSON or a file name keeps
its braces). The resolved text is the job's param, so "Queue again" and `batchline again` send
it as it was. Errors name the node and input.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from core.batch.seeds import MAX_JOBS
from core.batch.spec import BatchSpec, GridAxis
from core.batch.values import parse_assignment
from core.batch.wildcards import (
    COUNT_CEILING,
    MAX_EXPANSIONS,
    Template,
    escaped,
    has_wildcards,
)
from core.errors import BatchTooLarge, CompositionError
from core.presets.api_format import is_link
from core.presets.model import InputRef

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from core.catalogue import Catalogue
    from core.presets.model import Preset

RANDOM = "random"  # one text per job, chosen by the job's seed (the default)
ALL = "all"  # every text a job: the input becomes an axis
MODES = (RANDOM, ALL)


def text_inputs(api: Mapping[str, Any], catalogue: Catalogue) -> dict[str, str]:
    """Every literal text input of the workflow (``NODE_ID.INPUT`` -> its text): a STRING
    widget of the catalogue, or a text value of an input the catalogue does not know."""
    texts: dict[str, str] = {}
    for node_id, node in api.items():
        if not isinstance(node, Mapping):
            continue
        cls = catalogue.get(str(node.get("class_type")))
        for name, value in (node.get("inputs") or {}).items():
            if not isinstance(value, str) or is_link(value):
                continue
            spec = cls.input(name) if cls else None
            if spec is None or not spec.is_widget or spec.type == "STRING":
                texts[f"{node_id}.{name}"] = value
    return texts


def prompt_inputs(api: Mapping[str, Any], catalogue: Catalogue) -> set[str]:
    """The workflow's prompt inputs (``NODE_ID.INPUT``), whose wildcards are resolved without
    being asked for: those the catalogue marks ``dynamicPrompts`` (as ComfyUI's frontend
    expands them) or multi-line (a PrimitiveStringMultiline feeding a prompt)."""
    found = set()
    for node_id, node in api.items():
        cls = catalogue.get(str(node.get("class_type"))) if isinstance(node, Mapping) else None
        if cls is None:
            continue
        for name in node.get("inputs") or {}:
            spec = cls.input(name)
            if spec is not None and (
                spec.options.get("dynamicPrompts") or spec.options.get("multiline")
            ):
                found.add(f"{node_id}.{name}")
    return found


def checked_modes(spec: BatchSpec, texts: Mapping[str, str]) -> dict[str, str]:
    """The spec's wildcard modes, each naming a text input of the workflow."""
    modes: dict[str, str] = {}
    for raw, mode in spec.wildcards.items():
        key = str(_parsed(raw))
        where = _where(key)
        if mode not in MODES:
            raise CompositionError(f"{where}: wildcards are 'random' or 'all', not {mode!r}")
        if key not in texts:
            raise CompositionError(f"{where} is not a text input of the workflow")
        modes[key] = mode
    return modes


def expand_spec(
    preset: Preset, spec: BatchSpec, catalogue: Catalogue, folder: Path | None
) -> BatchSpec:
    """``spec`` with each "all" input turned into an axis over every text its wildcards give
    (an override's text, else the preset's; an axis's values each expanded in turn, in place).
    A text holding a literal brace or bar is kept escaped (``\\{``), so that expanding the
    result again changes nothing and each job gets the text itself.

    Raises:
        CompositionError: a bad mode, an input that is not text, a zipped axis asked for
            "all", a wildcard that cannot be read or expands past a limit (naming the input).
        BatchTooLarge: the texts would make more than MAX_JOBS jobs.
    """
    texts = text_inputs(preset.api_workflow, catalogue)
    every = [key for key, mode in checked_modes(spec, texts).items() if mode == ALL]
    if not every:
        return spec
    overrides = _override_texts(spec.overrides)
    zipped = {str(_parsed(key)) for group in spec.zips for key in group}
    axes = {str(_parsed(axis.input)): axis for axis in spec.grid}
    templates: dict[str, list[Template]] = {}
    for key in every:
        if key in zipped:
            raise CompositionError(f"{_where(key)} is zipped: its wildcards can be random only")
        if key in axes:
            given = [v for v in axes[key].values if isinstance(v, str)]
        else:
            given = [str(overrides.get(key, texts[key]))]
        templates[key] = [_template(key, value, folder) for value in given]
    _check_count(spec, templates)
    grid = list(spec.grid)
    for key, parts in templates.items():
        texts_of = [_every(key, part) for part in parts]
        # escaped, each value is a wildcard that gives exactly its text: expanded again (as
        # compose does, or a viewer of the stored spec), nothing changes
        values = tuple(dict.fromkeys(escaped(text) for texts in texts_of for text in texts))
        if key in axes:
            grid[grid.index(axes[key])] = GridAxis(key, values)
        else:
            grid.append(GridAxis(key, values))
    kept = {k: v for k, v in overrides.items() if k not in templates}
    as_given = spec.overrides if len(kept) == len(overrides) else kept
    return replace(spec, overrides=as_given, grid=tuple(grid))


def _override_texts(overrides: tuple[str, ...] | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(overrides, Mapping):
        return {str(_parsed(key)): value for key, value in overrides.items()}
    pairs = [parse_assignment(text) for text in overrides]
    return {str(ref): value for ref, value in pairs}


def _check_count(spec: BatchSpec, templates: Mapping[str, list[Template]]) -> None:
    """Refuse before building them when the texts alone would make more jobs than MAX_JOBS."""
    group_of = {key: group for group in spec.zips for key in group}
    sizes = {
        group_of.get(axis.input, (axis.input,)): len(axis.values)
        for axis in spec.grid
        if axis.input not in templates
    }
    others = list(sizes.values())  # a zip group counts once
    counts = [sum(t.count() for t in parts) for parts in templates.values()]
    for key, count in zip(templates, counts, strict=True):
        if count > MAX_EXPANSIONS:
            more = "more than " if count >= COUNT_CEILING else ""
            raise CompositionError(
                f"{_where(key)}: its wildcards expand to {more}{count:,} texts, "
                f"more than {MAX_EXPANSIONS:,}"
            )
    total = math.prod(counts) * math.prod(others)
    if total > MAX_JOBS:
        named = " and ".join(
            f"{_where(key)} ({n:,})" for key, n in zip(templates, counts, strict=True)
        )
        raise BatchTooLarge(
            f"the wildcards of {named} would make {total:,} jobs, more than {MAX_JOBS:,}"
        )


class RandomTexts:
    """The random texts of a batch's jobs: each text input holding wildcards resolved by the
    job's seed, salted by the input's name (two inputs with one seed choose independently)."""

    def __init__(
        self, preset: Preset, spec: BatchSpec, catalogue: Catalogue, folder: Path | None
    ) -> None:
        api = preset.api_workflow
        texts = text_inputs(api, catalogue)
        named = checked_modes(spec, texts)
        prompts = prompt_inputs(api, catalogue)
        self._texts = {k: v for k, v in texts.items() if k in prompts or k in named}
        self._folder = folder
        self._templates: dict[tuple[str, str], Template] = {}
        self._seed_ref = str(preset.seed_inputs[0].ref) if preset.seed_inputs else None
        self._own_seed = _literal(api, self._seed_ref)

    def resolved(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` with every text holding wildcards (its own or the preset's) resolved."""
        seed = self._seed(params)
        out = dict(params)
        for key, literal in self._texts.items():
            text = params.get(key, literal)
            if isinstance(text, str) and has_wildcards(text):
                out[key] = self._template(key, text).random_text(seed, salt=key)
        return out

    def _seed(self, params: Mapping[str, Any]) -> int:
        """The job's seed: its first seed input's value, the workflow's own when kept, else 0."""
        if self._seed_ref is None:
            return 0
        value = params.get(self._seed_ref, self._own_seed)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    def _template(self, key: str, text: str) -> Template:
        if (key, text) not in self._templates:
            self._templates[key, text] = _template(key, text, self._folder)
        return self._templates[key, text]


def _literal(api: Mapping[str, Any], ref: str | None) -> Any:
    if ref is None:
        return None
    node_id, _, name = ref.partition(".")
    node = api.get(node_id)
    return (node.get("inputs") or {}).get(name) if isinstance(node, Mapping) else None


def _template(key: str, text: str, folder: Path | None) -> Template:
    """The parsed wildcards of ``text`` (its files read: random texts cannot fail then)."""
    where = _where(key)
    with _named(where):
        return Template(text, folder, where)


def _every(key: str, template: Template) -> list[str]:
    with _named(_where(key)):
        return template.every_text()


@contextlib.contextmanager
def _named(where: str) -> Iterator[None]:
    """A CompositionError raised inside, naming the input (``where``) when it does not."""
    try:
        yield
    except CompositionError as exc:
        message = str(exc)
        if message.startswith(where):
            raise
        raise type(exc)(f"{where}: {message}") from None


def _where(key: str) -> str:
    ref = _parsed(key)
    return f"node {ref.node_id}, input {ref.input!r}"


def _parsed(key: str) -> InputRef:
    try:
        return InputRef.parse(key)
    except ValueError as exc:
        raise CompositionError(str(exc)) from None

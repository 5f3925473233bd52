"""A batch's title, what the window, the CLI and the notices call it: the artist's name for it,
else one made from its preset and what its jobs vary ("Portrait · 40 seeds", "Fox · sampler ×
cfg", "Fox · 8 prompts × 4 seeds"), read from the spec the batch stores; and the titles of
many batches told apart ("Portrait · 40 seeds #2").

An input is named by its own short name ("sampler_name" -> "sampler"); where two varied inputs
would read the same, each gets the hint the composer gives it (``core.presets.input_names``:
"steps (base)", "steps (refiner)"). Picture, prompt and seed axes are counted ("12 pictures",
"8 prompts", "40 seeds"). Zipped axes walk as one ("cfg & steps").
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.batch.varied import input_name, is_seed
from core.batch.wildcard_spec import prompt_inputs
from core.catalogue import Catalogue
from core.inputs import PictureRef
from core.names import MAX_NAME
from core.presets.input_names import JOIN, input_names, name_hints

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from core.ledger import BatchRecord, Ledger

SEP = JOIN  # between the preset and what varies: "Portrait · 40 seeds"
CROSS = " × "  # between axes that multiply
ZIPPED = " & "  # between axes that walk together
PRESET_ROOM = 80  # characters the preset keeps when the whole would pass MAX_NAME
# Inputs whose own name reads poorly in a title; others lose "_name" and their underscores.
_SHORT = {
    "sampler_name": "sampler",
    "ckpt_name": "checkpoint",
    "unet_name": "model",
    "lora_name": "LoRA",
    "vae_name": "VAE",
    "clip_name": "CLIP",
    "control_net_name": "ControlNet",
    "strength_model": "LoRA strength",
    "strength_clip": "LoRA CLIP strength",
}


@dataclass(frozen=True)
class AxisFacts:
    """What the workflow says of the inputs a batch may vary: each one's name as the composer
    shows it, and which take a prompt or a picture (read from the workflow, ``of``)."""

    names: Mapping[str, str] = field(default_factory=dict)
    prompts: frozenset[str] = frozenset()
    pictures: frozenset[str] = frozenset()

    @classmethod
    def of(cls, api_workflow: Mapping[str, Any], catalogue: Catalogue) -> AxisFacts:
        return cls(
            input_names(api_workflow, catalogue),
            frozenset(prompt_inputs(api_workflow, catalogue)),
            frozenset(catalogue.picture_inputs(api_workflow)),
        )


def short_name(key: str) -> str:
    """``4.sampler_name`` -> ``sampler``, ``3.cfg`` -> ``cfg``, ``5.batch_size`` -> ``batch
    size``: an input as a title names it."""
    name = input_name(key)
    return _SHORT.get(name) or name.removesuffix("_name").replace("_", " ").strip() or name


def default_title(
    preset: str,
    spec: Mapping[str, Any],
    facts: AxisFacts | None = None,
    seeds: int | None = None,
) -> str:
    """The title of a batch of ``preset`` from the spec it stores (``batch.spec``: grid,
    zips, wildcards, seeds): the preset, then what varies, at most MAX_NAME characters.

    Args:
        facts: the workflow's names and kinds of inputs (without: inputs by their own name,
            prompts by the wildcards' "all", pictures by their values).
        seeds: the number of different seeds the jobs take, where known (one per input:
            the spec's list counts each input's).
    """
    facts = facts or AxisFacts()
    terms = _axis_terms(spec, facts)
    seeded = _seeds_term(spec.get("seeds"), seeds, alone=not terms)
    varies = CROSS.join([*terms, *([seeded] if seeded else [])])
    return _fitted(_clean(preset), _clean(varies))


def batch_title(
    ledger: Ledger, batch: BatchRecord, read: dict[str, AxisFacts] | None = None
) -> str:
    """The batch's name, else its default title (`stored_title`)."""
    return batch.name or stored_title(ledger, batch, read)


def stored_title(
    ledger: Ledger, batch: BatchRecord, read: dict[str, AxisFacts] | None = None
) -> str:
    """The default title of a stored batch, from its spec (its workflow read only for a
    grid): what a batch without a name is called, and what naming it "" goes back to.
    ``read`` keeps each workflow's facts by hash for the next batch of many."""
    facts = None
    if batch.spec.get("grid"):
        read = {} if read is None else read
        if batch.workflow_hash not in read:
            api = ledger.workflow(batch.workflow_hash)
            read[batch.workflow_hash] = AxisFacts.of(api, Catalogue.bundled())
        facts = read[batch.workflow_hash]
    return default_title(batch.preset, batch.spec, facts)


def told_apart(titles: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each ``(batch id, title)``, in creation order, mapped to a label no other batch has:
    the title, and from its second use on "#2", "#3"."""
    titles = list(titles)
    taken = {title for _, title in titles}
    uses: Counter[str] = Counter()
    labels: dict[str, str] = {}
    for batch_id, title in titles:
        uses[title] += 1
        label = title
        if uses[title] > 1:
            while (label := f"{title} #{uses[title]}") in taken:
                uses[title] += 1
        taken.add(label)
        labels[batch_id] = label
    return labels


def batch_titles(ledger: Ledger, batches: Sequence[BatchRecord] | None = None) -> dict[str, str]:
    """Every batch's title (of ``batches``, all the ledger's by default, oldest first), told
    apart (`told_apart`), by id; each workflow read once."""
    read: dict[str, AxisFacts] = {}
    batches = ledger.batches() if batches is None else batches
    return told_apart((batch.id, batch_title(ledger, batch, read)) for batch in batches)


# --- what varies ---------------------------------------------------------------------------------


def _axis_terms(spec: Mapping[str, Any], facts: AxisFacts) -> list[str]:
    """One term per axis of the grid, zipped axes together where their first one stands."""
    axes = _axes(spec)
    kinds = {key: _kind(key, values, spec, facts) for key, values in axes.items()}
    hints = _twin_hints({key: kind or short_name(key) for key, kind in kinds.items()}, facts)
    groups = _zip_groups(spec, axes)
    terms: list[str] = []
    done: set[str] = set()
    for key in axes:
        if key not in done:
            group = groups.get(key, (key,))
            done.update(group)
            terms.append(_group_term(group, axes, kinds, hints))
    return [term for term in terms if term]


def _axes(spec: Mapping[str, Any]) -> dict[str, Sequence[Any]]:
    axes: dict[str, Sequence[Any]] = {}
    for axis in spec.get("grid") or ():
        if isinstance(axis, dict) and isinstance(axis.get("values"), list):
            axes[_key(str(axis.get("input")))] = axis["values"]
    return axes


def _zip_groups(spec: Mapping[str, Any], axes: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """Each zipped axis mapped to its group (the group's axes in the grid's order)."""
    groups: dict[str, tuple[str, ...]] = {}
    for group in spec.get("zips") or ():
        keys = {_key(str(key)) for key in group}
        ordered = tuple(key for key in axes if key in keys)
        groups.update(dict.fromkeys(ordered, ordered))
    return groups


def _group_term(
    group: Sequence[str],
    axes: Mapping[str, Sequence[Any]],
    kinds: Mapping[str, str | None],
    hints: Mapping[str, str],
) -> str:
    """An axis (or a zip group) as a title says it: "12 pictures", "cfg", "12 pictures &
    prompts", "cfg & steps", "steps (base)"; "" for inputs of one value, which vary nothing."""
    count = max(len(axes[key]) for key in group)
    counted = [key for key in group if kinds[key]]
    named = [short_name(key) + hints.get(key, "") for key in group if not kinds[key]]
    if not counted:
        return ZIPPED.join(named) if count > 1 else ""
    nouns = [_plural(str(kinds[key]), count) + hints.get(key, "") for key in counted]
    return f"{count:,} {ZIPPED.join(dict.fromkeys(nouns + named))}"


def _kind(key: str, values: Sequence[Any], spec: Mapping[str, Any], facts: AxisFacts) -> str | None:
    """ "seed", "picture" or "prompt" for an axis counted so; None for one named."""
    if is_seed(key):
        return "seed"
    if key in facts.pictures or any(PictureRef.from_param(value) for value in values):
        return "picture"
    wildcards = spec.get("wildcards") or {}
    every = {_key(str(k)) for k, mode in wildcards.items() if mode == "all"}
    return "prompt" if key in facts.prompts or key in every else None


def _twin_hints(words: Mapping[str, str], facts: AxisFacts) -> dict[str, str]:
    """For the keys whose word ("steps", "prompt") another key shares, the composer's hint
    in brackets (" (base)", " (refiner)"); the others have none."""
    twins: dict[str, list[str]] = {}
    for key, word in words.items():
        twins.setdefault(word, []).append(key)
    hints: dict[str, str] = {}
    for group in twins.values():
        if len(group) > 1:
            named = {key: _clean(facts.names.get(key, "")) for key in group}
            hints.update({key: f" ({hint})" for key, hint in name_hints(group, named).items()})
    return hints


def _seeds_term(plan: Any, seeds: int | None, alone: bool) -> str:
    """ "40 seeds"; one seed "seed 7" when nothing else varies (nothing in a grid); none when
    the workflow's own seeds are kept."""
    if not isinstance(plan, dict) or plan.get("mode", "keep") == "keep":
        return ""
    values = plan.get("values") or []
    explicit = plan.get("mode") == "explicit"
    count = seeds or (len(values) if explicit else _whole(plan.get("count"), 1))
    if count > 1:
        return f"{count:,} seeds"
    if not alone:
        return ""
    if explicit and values:
        return f"seed {values[0]}"
    if plan.get("mode") == "sequence":
        return f"seed {_whole(plan.get('start'), 0)}"
    return "1 seed"


def _plural(noun: str, count: int) -> str:
    return noun if count == 1 else f"{noun}s"


def _whole(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _key(raw: str) -> str:
    """``NODE.INPUT`` as the composer keys it (spaces around its parts dropped)."""
    node_id, dot, name = raw.strip().partition(".")
    return f"{node_id.strip()}{dot}{name.strip()}"


# --- a name that may be stored ---------------------------------------------------------------


def _fitted(preset: str, varies: str) -> str:
    """``preset · varies`` within MAX_NAME: a long preset cut to PRESET_ROOM first, then the
    end of what varies."""
    if not varies:
        return _cut(preset, MAX_NAME)
    title = f"{preset}{SEP}{varies}"
    if len(title) <= MAX_NAME:
        return title
    return _cut(f"{_cut(preset, PRESET_ROOM)}{SEP}{varies}", MAX_NAME)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _clean(text: str) -> str:
    """What a node title may hold that a name may not (``core.names.checked_name``): path
    separators become "-", controls and invisible formatting go, runs of spaces close."""
    kept = "".join(
        "-" if char in "/\\" else " " if char.isspace() else char
        for char in text
        if char.isspace() or unicodedata.category(char) not in ("Cc", "Cf", "Cs")
    )
    return " ".join(kept.split())

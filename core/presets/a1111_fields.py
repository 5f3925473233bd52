"""Where A1111's fields live in a ComfyUI workflow: a picture's infotext from the workflow that
made it, and an infotext's values put onto a workflow's inputs.

The sampler read is the one that starts the picture: a node with ``positive`` and
``negative`` conditioning and a seed (KSampler, KSamplerAdvanced, SamplerCustom), the one fed
by an empty latent (a size) before the others (a refiner's or a hires pass's), one that leads
to a saved picture before one that does not. Its prompts are the text boxes its conditioning
comes from; its model the checkpoint its ``model`` input comes from, through LoRA loaders.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeGuard

from core.presets.api_format import is_link, node_inputs
from core.presets.infotext import Infotext, number_text
from core.presets.sampler_names import a1111_sampler, a1111_schedule, comfy_sampler

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

_TEXTS = ("text", "text_g", "prompt")
_SEEDS = ("seed", "noise_seed")
_MODELS = ("ckpt_name", "unet_name")
_STRENGTHS = ("strength_model", "strength")
_MAX_HOPS = 64  # a chain of nodes followed for one field; workflows are checked acyclic
_KNOWN = frozenset(
    {"Steps", "Sampler", "Schedule type", "CFG scale", "Seed", "Size", "Model"}
    | {"Denoising strength"}
)


@dataclass(frozen=True)
class Places:
    """Each field's ``NODE.INPUT`` in a workflow (prompt, negative, seed, steps, cfg, sampler,
    scheduler, denoise, width, height, model), and each LoRA loader's (name, strength) inputs
    on the sampler's model path."""

    refs: Mapping[str, str]
    loras: tuple[tuple[str, str | None], ...] = ()


def places(api: Mapping[str, Any]) -> Places | None:
    """Where `api`'s starting sampler takes each field from; None without such a sampler."""
    sampler = _main_sampler(api)
    if sampler is None:
        return None
    refs: dict[str, str] = {}
    inputs = node_inputs(api[sampler])
    for role in ("positive", "negative"):
        found = _text_ref(api, inputs.get(role), role)
        if found and found not in refs.values():  # a zeroed-out positive is no negative
            refs["prompt" if role == "positive" else "negative"] = found
    _put(refs, "seed", _literal(api, sampler, _SEEDS, ("noise",)))
    _put(refs, "steps", _literal(api, sampler, ("steps",), ("sigmas",)))
    _put(refs, "cfg", _literal(api, sampler, ("cfg",), ("guider",)))
    _put(refs, "sampler", _literal(api, sampler, ("sampler_name",), ("sampler",)))
    _put(refs, "scheduler", _literal(api, sampler, ("scheduler",), ("sigmas",)))
    _put(refs, "denoise", _literal(api, sampler, ("denoise",), ("sigmas",)))
    size = _size_node(api, inputs.get("latent_image"))
    if size is not None:
        refs["width"], refs["height"] = f"{size}.width", f"{size}.height"
    model, loras = _model_path(api, inputs.get("model"))
    _put(refs, "model", model)
    return Places(MappingProxyType(refs), loras)


def infotext_of(
    api: Mapping[str, Any],
    picture_size: tuple[int, int] | None = None,
    hashes: Mapping[str, str] | None = None,
) -> Infotext | None:
    """The infotext of a picture `api` made: None when no sampler is found in it.

    `picture_size` stands for the size when the sampler starts from no empty latent (from a
    picture); `hashes` gives a model file's A1111 short hash (10 hex digits) where known: the
    "Model hash" and "Lora hashes" are written only for those.
    """
    found = places(api)
    if found is None:
        return None
    value = {field: _value(api, ref) for field, ref in found.refs.items()}
    hashes = hashes or {}
    params: dict[str, str] = {}
    _add(params, "Steps", value.get("steps"))
    if isinstance(value.get("sampler"), str):
        params["Sampler"] = a1111_sampler(value["sampler"])
    if isinstance(value.get("scheduler"), str):
        params["Schedule type"] = a1111_schedule(value["scheduler"])
    _add(params, "CFG scale", value.get("cfg"))
    _add(params, "Seed", value.get("seed"))
    width, height = value.get("width"), value.get("height")
    size = (width, height) if _whole(width) and _whole(height) else picture_size
    if size is not None:
        params["Size"] = f"{size[0]}x{size[1]}"
    model = value.get("model")
    if isinstance(model, str):
        if model in hashes:
            params["Model hash"] = hashes[model]
        params["Model"] = file_stem(model)
    denoise = value.get("denoise")
    if _number(denoise) and not math.isclose(float(denoise), 1.0):
        params["Denoising strength"] = number_text(denoise)
    loras = _loras(api, found.loras)
    lora_hashes = [f"{file_stem(name)}: {hashes[name]}" for name, _ in loras if name in hashes]
    if lora_hashes:
        params["Lora hashes"] = ", ".join(lora_hashes)
    return Infotext(
        prompt=_text(value.get("prompt")),
        negative=_text(value.get("negative")),
        params=MappingProxyType(params),
        loras=tuple((file_stem(name), weight) for name, weight in loras),
    )


def mapped_values(
    api: Mapping[str, Any], info: Infotext, models: Iterable[str] = ()
) -> tuple[dict[str, Any], list[str]]:
    """An infotext's values as `api`'s inputs (``NODE.INPUT`` -> value), and what of it has no
    place there, each in a few words ("Clip skip", "LoRA fox_style").

    `models` are the checkpoint files the servers list: "Model: name" is set to the one named
    so (its name without folder and extension), when the workflow has a checkpoint input.
    """
    found = places(api)
    refs = dict(found.refs) if found else {}
    values: dict[str, Any] = {}
    left: dict[str, str] = {}  # by the key it is read from ("" for the prompts): in words

    def put(field: str, value: Any, key: str, label: str) -> None:
        if field in refs and value is not None:
            values[refs[field]] = value
        else:
            left.setdefault(key, label)

    params = info.params
    if info.prompt:
        put("prompt", info.prompt, "", "the prompt")
    if info.negative:
        put("negative", info.negative, " ", "the negative prompt")
    for key, field, read in _NUMBERS:
        if key in params:
            put(field, read(params[key]), key, key)
    if "Sampler" in params:
        schedule = params.get("Schedule type")
        sampler, scheduler = comfy_sampler(params["Sampler"], schedule)
        put("sampler", sampler, "Sampler", f"Sampler {params['Sampler']}")
        if scheduler is not None:
            put("scheduler", scheduler, "Schedule type", f"Schedule type {schedule or ''}")
        elif schedule is not None and schedule.casefold() != "automatic":
            left["Schedule type"] = f"Schedule type {schedule}"
    if "Size" in params:
        size = info.size()
        put("width", size[0] if size else None, "Size", "Size")
        if size and "width" in refs:
            put("height", size[1], "Size", "Size")
    if "Model" in params:
        wanted = params["Model"].casefold()
        model = next((m for m in models if file_stem(m).casefold() == wanted), None)
        unlisted = " (no server lists it)" if "model" in refs else ""
        put("model", model, "Model", f"Model {params['Model']}{unlisted}")
    said = [left[key] for key in ("", " ") if key in left]
    said += [left.get(key, key) for key in params if key in left or key not in _KNOWN]
    return values, said + [f"LoRA {name}" for name, _ in info.loras]


def _int(text: str) -> int | None:
    return int(text) if re.fullmatch(r"-?\d+", text.strip()) else None


def _float(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


_NUMBERS: tuple[tuple[str, str, Callable[[str], Any]], ...] = (
    ("Steps", "steps", _int),
    ("Seed", "seed", _int),
    ("CFG scale", "cfg", _float),
    ("Denoising strength", "denoise", _float),
)


def file_stem(name: str) -> str:
    """A model file's name as A1111 names it: no folder, no extension."""
    base = PureWindowsPath(PurePosixPath(name).name).name
    return base.rsplit(".", 1)[0] if "." in base else base


# --- finding the nodes ------------------------------------------------------------------------


def _main_sampler(api: Mapping[str, Any]) -> str | None:
    candidates = [
        node_id
        for node_id, node in api.items()
        if is_link(node_inputs(node).get("positive")) and is_link(node_inputs(node).get("negative"))
    ]
    if not candidates:
        return None
    saved = _upstream_of_outputs(api)

    def rank(node_id: str) -> tuple[bool, bool, list[Any]]:
        starts = _size_node(api, node_inputs(api[node_id]).get("latent_image")) is not None
        return (not starts, node_id not in saved, _natural(node_id))

    return min(candidates, key=rank)


def _upstream_of_outputs(api: Mapping[str, Any]) -> set[str]:
    todo = [node_id for node_id, node in api.items() if "filename_prefix" in node_inputs(node)]
    seen: set[str] = set()
    while todo:
        node_id = todo.pop()
        if node_id in seen or node_id not in api:
            continue
        seen.add(node_id)
        todo += [str(v[0]) for v in node_inputs(api[node_id]).values() if is_link(v)]
    return seen


def _text_ref(api: Mapping[str, Any], link: Any, role: str) -> str | None:
    """The text box a conditioning comes from: through conditioning nodes (the input named
    like the role first, then any ``conditioning*`` one), and a text given by a link."""
    for _ in range(_MAX_HOPS):
        if not is_link(link) or str(link[0]) not in api:
            return None
        node_id = str(link[0])
        if api[node_id].get("class_type") == "ConditioningZeroOut":
            return None  # no text: nothing (Flux's empty negative)
        inputs = node_inputs(api[node_id])
        for name in _TEXTS:
            if isinstance(inputs.get(name), str):
                return f"{node_id}.{name}"
            if is_link(inputs.get(name)):
                return _string_ref(api, inputs[name])
        nxt = inputs.get(role)
        if not is_link(nxt):
            nxt = next((v for k, v in inputs.items() if "conditioning" in k and is_link(v)), None)
        link = nxt
    return None


def _string_ref(api: Mapping[str, Any], link: Any) -> str | None:
    node_id = str(link[0])
    inputs = node_inputs(api.get(node_id))
    name = next((k for k in ("value", "string", "text") if isinstance(inputs.get(k), str)), None)
    return f"{node_id}.{name}" if name else None


def _literal(
    api: Mapping[str, Any], node_id: str, names: tuple[str, ...], via: tuple[str, ...]
) -> str | None:
    """``NODE.INPUT`` of the first of `names` the node holds as a value (or takes from a
    primitive node's ``value``), or the node one of its `via` links leads to holds
    (SamplerCustom's sampler and sigmas)."""
    inputs = node_inputs(api[node_id])
    for name in names:
        if name in inputs and not is_link(inputs[name]):
            return f"{node_id}.{name}"
        primitive = _source(api, inputs.get(name))  # PrimitiveInt and the like: its value
        held = node_inputs(api[primitive]) if primitive is not None else {}
        if "value" in held and not is_link(held["value"]):
            return f"{primitive}.value"
    for link_name in via:
        source = _source(api, inputs.get(link_name))
        if source is not None:
            other = node_inputs(api[source])
            for name in names:
                if name in other and not is_link(other[name]):
                    return f"{source}.{name}"
    return None


def _source(api: Mapping[str, Any], link: Any) -> str | None:
    """The node a link comes from, when it is one to a node of `api`."""
    return str(link[0]) if is_link(link) and str(link[0]) in api else None


def _size_node(api: Mapping[str, Any], link: Any) -> str | None:
    if not is_link(link) or str(link[0]) not in api:
        return None
    inputs = node_inputs(api[str(link[0])])
    if _whole(inputs.get("width")) and _whole(inputs.get("height")):
        return str(link[0])
    return None


def _model_path(api: Mapping[str, Any], link: Any) -> tuple[str | None, tuple[Any, ...]]:
    loras: list[tuple[str, str | None]] = []
    for _ in range(_MAX_HOPS):
        if not is_link(link) or str(link[0]) not in api:
            break
        node_id = str(link[0])
        inputs = node_inputs(api[node_id])
        model = next((n for n in _MODELS if isinstance(inputs.get(n), str)), None)
        if model:
            return f"{node_id}.{model}", tuple(reversed(loras))
        if isinstance(inputs.get("lora_name"), str):
            strength = next((n for n in _STRENGTHS if _number(inputs.get(n))), None)
            loras.append((f"{node_id}.lora_name", f"{node_id}.{strength}" if strength else None))
        link = inputs.get("model")
    return None, tuple(reversed(loras))


def _loras(api: Mapping[str, Any], refs: Iterable[tuple[str, str | None]]) -> list[tuple[str, str]]:
    return [
        (str(_value(api, name)), number_text(_value(api, strength)) if strength else "1")
        for name, strength in refs
    ]


# --- values ---------------------------------------------------------------------------------


def _value(api: Mapping[str, Any], ref: str) -> Any:
    node_id, _, name = ref.partition(".")
    return node_inputs(api.get(node_id)).get(name)


def _put(refs: dict[str, str], field: str, ref: str | None) -> None:
    if ref is not None:
        refs[field] = ref


def _add(params: dict[str, str], key: str, value: Any) -> None:
    if _number(value):
        params[key] = number_text(value)


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _natural(text: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]

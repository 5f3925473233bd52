"""Finding the seed inputs of an API workflow, following links to the node that holds the value."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from core.errors import PresetError
from core.presets.api_format import is_link, node_inputs
from core.presets.model import InputRef, SeedInput

if TYPE_CHECKING:
    from core.catalogue import Catalogue, InputSpec

SEED_NAMES = frozenset({"seed", "noise_seed"})
SAMPLER_SEED_MAX = 0xFFFFFFFFFFFFFFFF
DEFAULT_SEED_MAX = 0xFFFFFFFF
MAX_HOPS = 32


def detect_seed_inputs(api: Mapping[str, Any], catalogue: Catalogue) -> tuple[SeedInput, ...]:
    """The seed inputs of a workflow, found by name and by `control_after_generate`.

    A seed fed by a link is followed to the node that provides the literal value; inputs
    that cannot be followed to an integer literal are left out.
    """
    candidates = [
        InputRef(str(node_id), str(name))
        for node_id, node in api.items()
        for name, value in node_inputs(node).items()
        if _looks_like_seed(name, value, _spec(api, catalogue, str(node_id), str(name)))
    ]
    return _resolve_all(api, catalogue, candidates, strict=False)


def explicit_seed_inputs(
    api: Mapping[str, Any], catalogue: Catalogue, refs: Iterable[str | InputRef]
) -> tuple[SeedInput, ...]:
    """The seed inputs named by the artist (`NODE_ID.INPUT`), which replace the detected set."""
    parsed = []
    for ref in refs:
        try:
            parsed.append(ref if isinstance(ref, InputRef) else InputRef.parse(ref))
        except ValueError as exc:
            raise PresetError(f"seed input: {exc}") from None
    return _resolve_all(api, catalogue, parsed, strict=True)


def _resolve_all(
    api: Mapping[str, Any], catalogue: Catalogue, refs: list[InputRef], *, strict: bool
) -> tuple[SeedInput, ...]:
    found: dict[InputRef, SeedInput] = {}
    for ref in refs:
        seed = follow_seed(api, catalogue, ref, strict=strict)
        if seed is not None and seed.ref not in found:
            found[seed.ref] = seed
    return tuple(found.values())


def follow_seed(
    api: Mapping[str, Any], catalogue: Catalogue, ref: InputRef, *, strict: bool = True
) -> SeedInput | None:
    """Follow `ref` through links to the integer literal that feeds it."""
    low, high = 0, SAMPLER_SEED_MAX
    for _ in range(MAX_HOPS):
        node = api.get(ref.node_id)
        if node is None or ref.input not in node_inputs(node):
            _fail(strict, f"seed input {ref}: no such node input in the workflow")
            return None
        spec = _spec(api, catalogue, ref.node_id, ref.input)
        low, high = _narrow(low, high, spec)
        value = node_inputs(node)[ref.input]
        if not is_link(value):
            return _literal(ref, value, low, high, strict)
        provider = _provider_input(api, value[0])
        if provider is None:
            _fail(strict, f"seed input {ref}: its link leads to no integer value")
            return None
        ref = provider
    _fail(strict, f"seed input {ref}: links nest too deep")
    return None


def _literal(ref: InputRef, value: Any, low: int, high: int, strict: bool) -> SeedInput | None:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(strict, f"seed input {ref}: value {value!r} is not an integer")
        return None
    return SeedInput(ref, low, high)


def _provider_input(api: Mapping[str, Any], node_id: str) -> InputRef | None:
    """The input of a value-providing node (a primitive, a seed node) that holds the seed."""
    inputs = node_inputs(api.get(node_id))
    names = [n for n, v in inputs.items() if is_link(v) or _is_int(v)]
    for name in names:
        if name in SEED_NAMES or "seed" in name.lower() or name == "value":
            return InputRef(node_id, name)
    return InputRef(node_id, names[0]) if len(names) == 1 else None


def _looks_like_seed(name: str, value: Any, spec: InputSpec | None) -> bool:
    if spec is not None and spec.type != "INT":
        return False
    if "seed" in name.lower():
        return True
    # PrimitiveInt-style `value` inputs carry the flag too, but are only seeds when a seed
    # input links to them (followed above).
    return spec is not None and spec.has_control_after_generate and name != "value"


def _narrow(low: int, high: int, spec: InputSpec | None) -> tuple[int, int]:
    if spec is None:
        return low, min(high, DEFAULT_SEED_MAX)
    lo, hi = spec.minimum, spec.maximum
    low = max(low, int(lo)) if lo is not None else low
    high = min(high, int(hi)) if hi is not None else min(high, DEFAULT_SEED_MAX)
    return max(low, 0), high


def _spec(
    api: Mapping[str, Any], catalogue: Catalogue, node_id: str, name: str
) -> InputSpec | None:
    node = api.get(node_id)
    cls = catalogue.get(str(node.get("class_type"))) if isinstance(node, Mapping) else None
    return cls.input(name) if cls else None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fail(strict: bool, message: str) -> None:
    if strict:
        raise PresetError(message)

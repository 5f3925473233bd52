"""Property tests: random and mutated files either load or raise PresetError, nothing else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import PresetError
from core.presets import load_preset

DATA = Path(__file__).parents[2] / "data"
SEEDS = [
    (DATA / "comfyui-output-with-workflow.png").read_bytes(),
    (DATA / "presets" / "editor_features.json").read_bytes(),
    (DATA / "presets" / "editor_subgraph.json").read_bytes(),
    (DATA / "presets" / "api_primitive_seed.json").read_bytes(),
]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _load_bytes(tmp: Path, data: bytes) -> None:
    path = tmp / "fuzz.bin"
    path.write_bytes(data)
    try:
        load_preset(path)
    except PresetError as exc:
        message = str(exc)
    else:
        return
    assert message.startswith("fuzz.bin: ")
    assert "\n" not in message


@SETTINGS
@given(data=st.binary(max_size=2000))
def test_random_bytes(tmp_path_factory: Any, data: bytes) -> None:
    _load_bytes(tmp_path_factory.mktemp("f"), data)


@SETTINGS
@given(
    which=st.sampled_from(range(len(SEEDS))),
    edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=8),
    cut=st.one_of(st.none(), st.integers(0, 10**6)),
)
def test_mutated_real_files(
    tmp_path_factory: Any, which: int, edits: list[tuple[int, int]], cut: int | None
) -> None:
    data = bytearray(SEEDS[which])
    for position, value in edits:
        data[position % len(data)] = value
    if cut is not None:
        data = data[: cut % (len(data) + 1)]
    _load_bytes(tmp_path_factory.mktemp("f"), bytes(data))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)


def _mutate_json(value: Any, path: list[int], replacement: Any) -> Any:
    if not path:
        return replacement
    if isinstance(value, dict) and value:
        key = sorted(value)[path[0] % len(value)]
        return {**value, key: _mutate_json(value[key], path[1:], replacement)}
    if isinstance(value, list) and value:
        index = path[0] % len(value)
        return [
            *value[:index],
            _mutate_json(value[index], path[1:], replacement),
            *value[index + 1 :],
        ]
    return replacement


@SETTINGS
@given(
    which=st.sampled_from([1, 2, 3]),
    path=st.lists(st.integers(0, 50), max_size=6),
    replacement=JSON,
)
def test_structurally_mutated_json(
    tmp_path_factory: Any, which: int, path: list[int], replacement: Any
) -> None:
    mutated = _mutate_json(json.loads(SEEDS[which]), path, replacement)
    _load_bytes(tmp_path_factory.mktemp("f"), json.dumps(mutated).encode())

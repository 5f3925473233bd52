"""Tests for core.batch.workflow: rebuilding a job's workflow, and retry smaller."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.batch import (
    build_workflow,
    default_shrink,
    retry_smaller,
    shrinkable,
)
from core.errors import CompositionError
from core.presets import Preset


def test_build_workflow_wraps_lists_and_rejects_unknown_nodes(one_seed: Preset) -> None:
    workflow = build_workflow(one_seed.api_workflow, {"6.text": ["a", "b"]})
    assert workflow["6"]["inputs"]["text"] == {"__value__": ["a", "b"]}
    with pytest.raises(CompositionError, match=r"node 42"):
        build_workflow(one_seed.api_workflow, {"42.x": 1})


def test_retry_smaller(one_seed: Preset) -> None:
    params = retry_smaller(one_seed.api_workflow, {"10.value": 9}, shrink=["size"])
    assert params == {"10.value": 9, "5.width": 768, "5.height": 576}
    again = retry_smaller(one_seed.api_workflow, params, factor=0.5, shrink=["size"])
    assert (again["5.width"], again["5.height"]) == (384, 288)


def test_retry_smaller_reduces_the_batch_size_first(one_seed: Preset) -> None:
    """Several images at once are what fills the memory: the default shrinks the batch."""
    found = shrinkable(one_seed.api_workflow, {})
    assert found == {"size": {"5.width": 1024, "5.height": 768}, "batch size": {"5.batch_size": 2}}
    assert default_shrink(found) == "batch size"
    assert retry_smaller(one_seed.api_workflow, {}) == {"5.batch_size": 1}
    both = retry_smaller(one_seed.api_workflow, {}, shrink=["size", "batch size"])
    assert both == {"5.width": 768, "5.height": 576, "5.batch_size": 1}
    assert default_shrink(shrinkable(one_seed.api_workflow, both)) == "size"
    with pytest.raises(CompositionError, match="no batch size left"):
        retry_smaller(one_seed.api_workflow, both, shrink=["batch size"])
    with pytest.raises(CompositionError, match="cannot shrink colour"):
        retry_smaller(one_seed.api_workflow, {}, shrink=["colour"])


def test_retry_smaller_falls_back_to_batch_size() -> None:
    api = {
        "1": {
            "class_type": "EmptyLatentImage",
            "inputs": {"width": 64, "height": 64, "batch_size": 4},
        }
    }
    assert retry_smaller(api, {}) == {"1.batch_size": 3}
    with pytest.raises(CompositionError, match=r"nothing|no width"):
        retry_smaller(api, {"1.batch_size": 1})
    with pytest.raises(CompositionError, match=r"factor"):
        retry_smaller(api, {}, factor=1.5)


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(65, 16384),
    factor=st.floats(0.05, 0.95),
)
def test_retry_smaller_gives_multiples_of_8(size: int, factor: float) -> None:
    api = {"1": {"class_type": "X", "inputs": {"width": size, "height": size}}}
    params = retry_smaller(api, {}, factor)
    assert params["1.width"] % 8 == 0
    assert 64 <= params["1.width"] < size

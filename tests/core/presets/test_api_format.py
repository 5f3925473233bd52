"""Tests for core.presets.api_format: what is an API workflow, a link, and a workflow refused."""

from __future__ import annotations

import pytest

from core.errors import PresetError
from core.presets.api_format import (
    is_api_workflow,
    is_link,
    node_inputs,
    validate_api_workflow,
    wrap_value,
)


def test_an_api_workflow_is_a_non_empty_mapping_of_nodes_with_a_class_type() -> None:
    assert is_api_workflow({"1": {"class_type": "X"}})
    assert not is_api_workflow({})
    assert not is_api_workflow({"1": {"class_type": "X"}, "2": {"inputs": {}}})
    assert not is_api_workflow([{"class_type": "X"}])


def test_a_link_is_a_node_id_and_an_output_index_not_a_boolean() -> None:
    assert is_link(["3", 0])
    assert not is_link(["3", True])
    assert not is_link([3, 0])
    assert not is_link(["3", 0, 1])


def test_node_inputs_are_empty_for_a_node_without_a_mapping_of_inputs() -> None:
    assert node_inputs({"inputs": {"a": 1}}) == {"a": 1}
    assert node_inputs({"inputs": [1]}) == {}
    assert node_inputs("node") == {}


@pytest.mark.parametrize(
    ("workflow", "message"),
    [
        ({"1": {"class_type": ""}}, "node 1 has no class_type"),
        ({"1": {"class_type": "X", "inputs": []}}, r"node 1 \(X\): inputs is not an object"),
        ({"1": {"class_type": "X", "inputs": {"a": ["9", 0]}}}, "link to node 9, which does"),
    ],
)
def test_a_bad_shape_or_a_dangling_link_is_refused(
    workflow: dict[str, object], message: str
) -> None:
    with pytest.raises(PresetError, match=message):
        validate_api_workflow(workflow)


def test_a_valid_workflow_comes_back_with_string_ids_and_lists_are_wrapped() -> None:
    linked = {"1": {"class_type": "X", "inputs": {"a": ["2", 0]}}, "2": {"class_type": "Y"}}
    assert validate_api_workflow(linked) == linked
    assert wrap_value([1, 2]) == {"__value__": [1, 2]}
    assert wrap_value(3) == 3

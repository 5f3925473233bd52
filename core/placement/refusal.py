"""A server's refusal of a job for a model it does not list after all (its files changed since
its lists were read): which of the job's files it refused, and which lists to read again before
the job is placed again instead of failed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterable

    from core.placement.needs import JobNeeds, ModelNeed

# ComfyUI's validation error for a combo value it does not list (execution.py validate_inputs).
NOT_IN_LIST = "value_not_in_list"


class NodeErrorLike(Protocol):
    """What is read of one node error (core.errors.NodeError has it)."""

    @property
    def node_id(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def input_name(self) -> str | None: ...


@dataclass(frozen=True)
class Refresh:
    """The lists to read again: `/models/<folder>` for each folder, or all of `/object_info`
    when a refused file's folder is unknown (a custom node's)."""

    folders: frozenset[str]
    whole: bool = False

    @property
    def needed(self) -> bool:
        return self.whole or bool(self.folders)


def refused_needs(node_errors: Iterable[NodeErrorLike], needs: JobNeeds) -> tuple[ModelNeed, ...]:
    """The job's model files the server refused as not in its list, in the job's order."""
    refused = {(e.node_id, e.input_name) for e in node_errors if e.type == NOT_IN_LIST}
    return tuple(need for need in needs.models if (need.node_id, need.input) in refused)


def refresh_for(refused: Iterable[ModelNeed]) -> Refresh:
    """What to read again so that the refused files are known present or absent."""
    needs = list(refused)
    folders = frozenset(need.folder for need in needs if need.folder is not None)
    return Refresh(folders, whole=any(need.folder is None for need in needs))

"""Tests for core.errors: the exception tree is the one its docstring draws (policies classify
by class), and the messages built from the parts."""

from __future__ import annotations

import re
from pathlib import Path

import core.errors
from core.errors import (
    ComfyRejected,
    LeaseTakenError,
    NodeError,
    OutputFolderFull,
    PromptError,
    SettingError,
)


def drawn_parents() -> dict[str, str]:
    """Each class of the drawing in the module docstring, and the class it hangs under."""
    parents: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    for line in (core.errors.__doc__ or "").splitlines():
        found = re.match(r"[ │├└─]*([A-Z][A-Za-z]+)", line)
        if not found or ("──" not in line and found.group(1) != "BatchlineError"):
            continue
        depth = found.start(1)
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if stack:
            parents[found.group(1)] = stack[-1][1]
        stack.append((depth, found.group(1)))
    return parents


def test_every_class_of_the_drawing_hangs_under_its_drawn_parent() -> None:
    parents = drawn_parents()
    assert len(parents) >= 30, "the drawing is read"
    for name, parent in parents.items():
        assert issubclass(getattr(core.errors, name), getattr(core.errors, parent)), name


def test_messages_say_who_what_and_where() -> None:
    assert str(LeaseTakenError(42)).endswith("running, pid 42")
    assert str(LeaseTakenError(None)).endswith("running, pid unknown")
    assert "is full: pictures wait on the server until there is room" in str(
        OutputFolderFull(Path("/out"))
    )
    assert isinstance(SettingError("k", "shown", "why"), core.errors.InputError)
    node = NodeError("3", "KSampler", "value_bigger_than_max", "too big", "steps", "steps")
    assert node.describe() == "node 3 (KSampler), input 'steps': too big"
    rejected = ComfyRejected(PromptError("bad", "invalid prompt", "x"), (node,), "/prompt")
    assert str(rejected) == f"/prompt: invalid prompt (x); {node.describe()}"

"""The command line, the API and the window give their commands through the one command object
(`core.controller.commands.LedgerCommands`): none of them queues, cancels, retries, pauses,
marks or names with the ledger's verbs or backpressure's check itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOORS = ("cli", "desktop", "core/api")

# Functions only the command object calls: a door calling one assembles a command by hand.
FUNCTIONS = {"room_check", "check_room", "queue_batch", "queue_smaller"}
IMPORTED_FROM = {"core.controller.backpressure", "core.batch", "core.batch.queueing"}
# The ledger's verbs behind a command, called on a ledger (``ledger.x``, ``self._ledger.x``).
LEDGER_VERBS = {
    "request_cancel",
    "request_cancel_many",
    "retry",
    "retry_many",
    "name_batch",
    "create_batch",
    "add_jobs",
}
# ``X.set`` on these: the pause setting, the request to read the models again, the marks.
SETTERS = {"PAUSED", "MODELS_ASKED", "marks"}


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def hand_made(tree: ast.AST) -> list[str]:
    """Each place in ``tree`` that gives a command without the command object."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in IMPORTED_FROM:
            found += [f"imports {a.name}" for a in node.names if a.name in FUNCTIONS]
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in FUNCTIONS:
            found.append(f"calls {func.id}")
        elif isinstance(func, ast.Attribute):
            receiver = _name(func.value)
            if func.attr in LEDGER_VERBS and receiver in ("ledger", "_ledger"):
                found.append(f"calls {receiver}.{func.attr}")
            elif func.attr == "set" and receiver in SETTERS:
                found.append(f"calls {receiver}.set")
    return found


def door_modules() -> list[Path]:
    return sorted(path for door in DOORS for path in (ROOT / door).rglob("*.py"))


@pytest.mark.parametrize("path", door_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_door_gives_a_command_by_hand(path: Path) -> None:
    assert hand_made(ast.parse(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("check = room_check(ledger, limits, 1)", "calls room_check"),
        ("from core.controller.backpressure import room_check", "imports room_check"),
        ("from core.batch import queue_batch", "imports queue_batch"),
        ("self._ledger.request_cancel_many(ids)", "calls _ledger.request_cancel_many"),
        ("ledger.retry_many(ids)", "calls ledger.retry_many"),
        ("PAUSED.set(ledger, True)", "calls PAUSED.set"),
        ("self.ledger.marks.set(ids, None)", "calls marks.set"),
        ("ledger.name_batch(batch, 'dusk')", "calls ledger.name_batch"),
    ],
)
def test_the_check_sees_each_hand_made_command(source: str, said: str) -> None:
    assert hand_made(ast.parse(source)) == [said]


def test_the_command_objects_own_calls_are_not_hand_made() -> None:
    source = "controller.cancel_batch(b); commands.mark(ids, None); controller.name_batch(b, n)"
    assert hand_made(ast.parse(source)) == []

"""Finds asserts that put an upper bound on measured time (``assert elapsed < 1.0``).

Such an assert fails on a slow or busy machine and proves little: a test waits for the event
instead (a bound on a hang, e.g. ``asyncio.timeout``, ``wait_for(..., within=)``), or counts
what happened. A lower bound (at least the backoff waited) is behaviour and stays allowed, as
is a deadline in a polling loop (``assert time.monotonic() < deadline``): it bounds a hang.

Read from the syntax tree: an expression is *measured* when it subtracts from a clock reading
(``time.monotonic() - started``, ``loop.time() - stopped``), names a variable assigned one,
calls (or awaits) a function of the same module returning one, or is a variable whose name
says it holds a length of time (``elapsed``, ``took``, ``stall``...).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

CLOCKS = frozenset({"monotonic", "perf_counter", "time", "process_time", "monotonic_ns"})
TIME_NAMES = re.compile(r"(^|_)(elapsed|took|stall|stalled|duration|durations|latency)($|_)")


@dataclass(frozen=True)
class Bound:
    """An assert bounding measured time from above: where, and its source line."""

    path: str
    function: str
    line: int
    text: str


def upper_bounds(source: str, path: str = "<test>") -> list[Bound]:
    """The asserts of ``source`` (a test module's text) that bound measured time from above."""
    tree = ast.parse(source)
    timed_functions = _returning_measured(tree)
    found: list[Bound] = []
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        measured = _measured_names(function, timed_functions)
        for node in _own_nodes(function):
            if isinstance(node, ast.Assert) and _bounds_from_above(
                node.test, measured, timed_functions
            ):
                text = ast.get_source_segment(source, node) or ""
                found.append(Bound(path, function.name, node.lineno, text))
    return found


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of ``function`` outside the functions nested in it (walked on their own)."""
    nodes: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        nodes.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return nodes


def _is_clock(node: ast.AST) -> bool:
    """``time.monotonic()``, ``perf_counter()``, ``loop.time()`` and the like."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in CLOCKS and not node.args


def _is_measured(node: ast.AST, names: Names, functions: set[str]) -> bool:
    called = {id(part.func) for part in ast.walk(node) if isinstance(part, ast.Call)}
    return any(
        _subtracts_from_a_clock(part, names)
        or (isinstance(part, ast.Name) and id(part) not in called and _is_length(part.id, names))
        or (isinstance(part, ast.Call) and getattr(part.func, "id", None) in functions)
        for part in ast.walk(node)
    )


def _subtracts_from_a_clock(node: ast.AST, names: Names) -> bool:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Sub)
        and any(_is_clock(side) or _is_instant(side, names) for side in ast.walk(node))
    )


def _is_length(name: str, names: Names) -> bool:
    return name in names.lengths or TIME_NAMES.search(name) is not None


def _is_instant(node: ast.AST, names: Names) -> bool:
    """A variable holding a clock reading (``started = time.monotonic()``)."""
    return isinstance(node, ast.Name) and node.id in names.instants


@dataclass
class Names:
    """A function's variables holding a clock reading, and those holding a length of time."""

    instants: set[str]
    lengths: set[str]


def _returning_measured(tree: ast.Module) -> set[str]:
    """The module's functions that return a measured length of time (``slept()``)."""
    functions: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names = _measured_names(node, functions)
            returns = [n for n in _own_nodes(node) if isinstance(n, ast.Return) and n.value]
            if any(_is_measured(r.value, names, functions) for r in returns if r.value):
                functions.add(node.name)
    return functions


def _measured_names(function: ast.AST, functions: set[str]) -> Names:
    """The variables of ``function`` assigned a clock reading or a measured length of time
    (in the order of the source; a tuple target takes the kind of its whole value)."""
    names = Names(set(), set())
    assigns = [n for n in _own_nodes(function) if isinstance(n, ast.Assign | ast.AnnAssign)]
    for node in sorted(assigns, key=lambda n: (n.lineno, n.col_offset)):
        if node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        variables = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if _is_measured(node.value, names, functions):
            names.lengths |= variables
        elif any(_is_clock(part) for part in ast.walk(node.value)):
            names.instants |= variables
    return names


def _bounds_from_above(test: ast.expr, names: Names, functions: set[str]) -> bool:
    """Whether ``test`` says some measured time is below (or at most) something."""
    for compare in ast.walk(test):
        if not isinstance(compare, ast.Compare):
            continue
        sides = [compare.left, *compare.comparators]
        for left, op, right in zip(sides, compare.ops, sides[1:], strict=False):
            if isinstance(op, ast.Lt | ast.LtE) and _is_measured(left, names, functions):
                return True
            if isinstance(op, ast.Gt | ast.GtE) and _is_measured(right, names, functions):
                return True
    return False


def upper_bounds_in(folder: Path, root: Path) -> list[Bound]:
    """Every such assert in the test modules under ``folder`` (paths relative to ``root``)."""
    return [
        bound
        for path in sorted(folder.rglob("*.py"))
        for bound in upper_bounds(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
    ]

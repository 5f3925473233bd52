"""The coverage gate run by `make test` after the suite: each package below must keep its own
line-and-branch coverage, so that code covered well elsewhere (the simulator, the GUI) cannot
pad a weak package, and everything measured together keeps a floor.

Usage: python tests/coverage_gate.py [coverage.json]  (the report of `coverage json`)
"""

from __future__ import annotations

import json
import sys
from pathlib import PurePosixPath
from typing import Any

# Package folder -> the least coverage it may have, in percent of its lines and branches.
PACKAGE_GATES = {"core/ledger": 95.0, "core/controller": 95.0, "core/comfy": 95.0}
OVERALL_GATE = 90.0


def percent(files: dict[str, Any], package: str | None = None) -> float | None:
    """Coverage of the files under the package folder (of every file if None), as coverage
    counts it: covered lines and branches over all lines and branches; None if none is there."""
    covered = total = 0
    for path, data in files.items():
        if package is None or PurePosixPath(path).is_relative_to(package):
            summary = data["summary"]
            covered += summary["covered_lines"] + summary.get("covered_branches", 0)
            total += summary["num_statements"] + summary.get("num_branches", 0)
    return 100.0 * covered / total if total else None


def check(report: dict[str, Any]) -> list[str]:
    """One line per gate, each ending in "ok" or "FAIL"; a report without branches fails."""
    if not report["meta"].get("branch_coverage"):
        return ["coverage was measured without branches: FAIL"]
    files = {PurePosixPath(path).as_posix(): data for path, data in report["files"].items()}
    lines = [_verdict(name, percent(files, name), gate) for name, gate in PACKAGE_GATES.items()]
    lines.append(_verdict("everything measured", percent(files), OVERALL_GATE))
    return lines


def _verdict(name: str, value: float | None, gate: float) -> str:
    if value is None:
        return f"{name}: no file measured: FAIL"
    return f"{name}: {value:.2f} % (at least {gate:.0f} %): {'ok' if value >= gate else 'FAIL'}"


def main(argv: list[str]) -> int:
    path = argv[1] if len(argv) > 1 else "coverage.json"
    try:
        with open(path, encoding="utf-8") as file:
            report = json.load(file)
    except (OSError, ValueError) as exc:
        print(f"coverage gate: cannot read the coverage report {path}: {exc}", file=sys.stderr)
        return 2
    lines = check(report)
    print("\n".join(f"coverage gate: {line}" for line in lines))
    return 1 if any(line.endswith("FAIL") for line in lines) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

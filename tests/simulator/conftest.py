"""Fixtures for the simulator's contract tests: the core tests' simulator factory, shared here
(conftest files do not reach siblings)."""

from __future__ import annotations

from tests.core.conftest import make_simulator, simulator

__all__ = ["make_simulator", "simulator"]

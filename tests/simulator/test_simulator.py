"""Tests for simulator.simulator: the server listens only on loopback addresses."""

from __future__ import annotations

import pytest

from simulator.simulator import check_loopback


def test_only_loopback_addresses_are_allowed() -> None:
    for host in ("127.0.0.1", "::1", "localhost"):
        check_loopback(host)
    with pytest.raises(ValueError, match="loopback"):
        check_loopback("0.0.0.0")

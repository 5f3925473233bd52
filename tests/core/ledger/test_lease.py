"""The controller lease: asking whether a controller runs never keeps the lease."""

from __future__ import annotations

import os

import pytest

from core.errors import LeaseTakenError
from core.ledger import Ledger


def test_check_free_lets_go_at_once_and_names_the_holder(ledger: Ledger) -> None:
    ledger.lease.check_free()
    assert not ledger.lease.held
    with Ledger(ledger.folder) as controller:
        controller.lease.acquire()  # no wait: nothing of the check was kept
        with pytest.raises(LeaseTakenError, match=f"pid {os.getpid()}"):
            ledger.lease.check_free()
        assert controller.lease.held
    ledger.lease.check_free()  # free again once the controller let go

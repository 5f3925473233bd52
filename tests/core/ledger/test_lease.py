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


def test_taken_says_whether_a_controller_holds_the_lease(ledger: Ledger) -> None:
    assert not ledger.lease.taken()
    with Ledger(ledger.folder) as controller:
        controller.lease.acquire()
        assert ledger.lease.taken()
        assert not ledger.lease.held, "asking took nothing"
    assert not ledger.lease.taken()

"""The controller lease: asking whether a controller runs never keeps the lease."""

from __future__ import annotations

import os
import shutil

import pytest

from core.errors import LeaseTakenError, LedgerError
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


def test_a_lock_file_that_cannot_be_opened_is_one_ledger_error(ledger: Ledger) -> None:
    """The data folder deleted under a window: asking is one error naming the lock file."""
    shutil.rmtree(ledger.folder)
    with pytest.raises(LedgerError, match=f"cannot open {ledger.lease.path}: No such file"):
        ledger.lease.taken()

"""Ledger writes held back a moment to be committed together: one transaction (one sync to
disk) for what one pass of a tick observed, instead of one per job."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ledger import Ledger


class GroupCommit:
    """Observations (ledger verbs) queued by ``add`` and written by ``commit`` in one
    transaction, in the order added.

    Only observations go here, never a submission: an attempt is committed before its POST is
    sent (what is held may be committed in the same transaction, ``commit`` inside another).
    An observation held back and lost with the process is read again from the server by the
    next controller, as after any crash; one written after a later one of the same attempt is
    refused by the ledger's forward-only rule, so order across commits does not matter.
    """

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._writes: list[Callable[[], object]] = []

    def add(self, write: Callable[[], object]) -> None:
        self._writes.append(write)

    def commit(self) -> None:
        """Write what was added, all or nothing (a failing write undoes the others: the
        server still holds what they said, and the next tick reads it again); inside the
        caller's transaction when there is one."""
        writes, self._writes = self._writes, []
        if not writes:
            return
        with self._ledger.handle.joined():
            for write in writes:
                write()

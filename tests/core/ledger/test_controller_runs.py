"""The controller's row in the ledger: replaced by each new controller, stop requests by run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.ledger import Ledger

if TYPE_CHECKING:
    from pathlib import Path


def test_no_controller_ever_ran(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        assert ledger.controller_runs.current() is None
        assert not ledger.controller_runs.request_stop()


def test_a_new_controller_replaces_the_last_ones_row(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        runs = ledger.controller_runs
        runs.begin("first", 10, "app", {"connection": "connecting"})
        runs.publish("first", {"connection": "connected"}, stopped=True)
        runs.begin("second", 11, "terminal", {"connection": "connecting"})
        runs.publish("first", {"connection": "offline"})  # the old run no longer writes
        current = runs.current()
        assert current is not None
        assert (current.run_id, current.pid, current.origin) == ("second", 11, "terminal")
        assert current.status == {"connection": "connecting"}
        assert current.stopped_at is None


def test_a_stop_request_reaches_only_the_running_controller(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger, Ledger(tmp_path) as client:
        ledger.controller_runs.begin("run", 10, "app", {})
        assert _asked(ledger) == (False, False)
        assert not client.controller_runs.request_stop("another run")
        assert client.controller_runs.exit_when_idle("run", True)
        assert _asked(ledger) == (False, True)
        assert client.controller_runs.request_stop("run")
        assert _asked(ledger) == (True, True)
        ledger.controller_runs.publish("run", {}, stopped=True)
        assert not client.controller_runs.request_stop()  # it has stopped: nothing to ask
        assert not client.controller_runs.exit_when_idle("run", False)
        assert ledger.controller_runs.of_run("another run") is None


def _asked(ledger: Ledger) -> tuple[bool, bool]:
    row = ledger.controller_runs.of_run("run")
    assert row is not None
    return row.stop_requested, row.exit_when_idle

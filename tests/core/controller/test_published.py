"""The controller's status as published in the ledger, read back by a client."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from core.controller import published
from core.controller.published import (
    StatusPublisher,
    read_published,
    status_from_json,
    status_to_json,
)
from core.controller.status import Connection, ControllerStatus, Progress, ServerStatus
from core.ledger import Ledger
from core.ledger.windows import WindowPresence

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

BUSY = ControllerStatus(
    connection=Connection.reconnecting,
    server="http://a:8188, http://b:8188",
    server_queue=4,
    in_flight=2,
    paused=True,
    positions={"job_1": 0, "job_2": 1},
    progress={"job_1": Progress(3, 20)},
    stalled=frozenset({"job_1"}),
    done_per_minute=7.5,
    last_error="http://b:8188: refused",
    servers=(
        ServerStatus("http://a:8188", Connection.connected, 3, {"job_1": 0}, stalled=frozenset()),
        ServerStatus(
            "http://b:8188",
            Connection.offline,
            1,
            {"job_2": 1},
            {"job_2": Progress(1, 2)},
            frozenset({"job_2"}),
            "refused",
        ),
    ),
)


def test_a_status_survives_the_round_trip() -> None:
    assert status_from_json(status_to_json(BUSY)) == BUSY


def test_keys_another_version_wrote_are_skipped() -> None:
    data = status_to_json(BUSY) | {"gpu_temperature": 80, "connection": "teleported"}
    data["servers"][0]["colour"] = "red"
    status = status_from_json(data)
    assert status.connection == Connection.connecting  # unknown: not claimed connected
    assert status.servers[0] == BUSY.servers[0]


def test_the_publisher_writes_changes_at_most_every_interval_and_a_heartbeat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(published, "PUBLISH_INTERVAL_S", 0.3)
    monkeypatch.setattr(published, "HEARTBEAT_S", 0.6)
    with Ledger(tmp_path) as ledger, Ledger(tmp_path) as client:
        publisher = StatusPublisher(ledger, "app")
        publisher.new_run()
        publisher.flush(ControllerStatus())
        publisher.flush(BUSY)  # too soon after the last write
        first = read_published(client)
        assert first is not None
        assert first.status == ControllerStatus()
        assert (first.origin, first.stopped) == ("app", False)
        time.sleep(0.3)
        publisher.flush(BUSY)
        second = read_published(client)
        assert second is not None
        assert second.status == BUSY
        publisher.flush(BUSY)  # unchanged: no write until the heartbeat
        assert read_published(client) == second
        time.sleep(0.6)
        publisher.flush(BUSY)
        beat = read_published(client)
        assert beat is not None
        assert beat.updated_at > second.updated_at
        assert not beat.silent(beat.updated_at + 1)
        publisher.end(BUSY)
        ended = read_published(client)
        assert ended is not None
        assert ended.stopped
        assert not ended.silent(ended.updated_at + 3600)


def test_a_controller_that_stops_before_its_first_write_says_why(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        publisher = StatusPublisher(ledger)
        publisher.new_run()
        publisher.end(ControllerStatus(stopped="ComfyUI refused the token"))
        row = read_published(ledger)
        assert row is not None
        assert row.stopped
        assert row.status.stopped == "ComfyUI refused the token"


def test_a_controller_that_stopped_writing_is_silent(tmp_path: Path) -> None:
    with Ledger(tmp_path) as ledger:
        publisher = StatusPublisher(ledger)
        publisher.new_run()
        publisher.flush(ControllerStatus())
        row = read_published(ledger)
        assert row is not None
        assert not row.silent(row.updated_at + published.SILENT_AFTER_S - 0.1)
        assert row.silent(row.updated_at + published.SILENT_AFTER_S + 0.1)


def test_one_the_app_started_stops_once_idle_for_the_grace_and_no_window_watches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(published, "IDLE_GRACE_S", 0.3)
    active = [True]
    window = WindowPresence(tmp_path)
    with Ledger(tmp_path) as ledger:
        publisher = StatusPublisher(ledger, "app")
        publisher.new_run()
        publisher.flush(ControllerStatus())
        window.hold()
        active[0] = False
        assert publisher.stop_reason(lambda: active[0]) == ""  # idle, but a window watches
        time.sleep(0.3)
        assert publisher.stop_reason(lambda: active[0]) == ""
        window.release()  # closed (or crashed: the OS lets go of its lock all the same)
        assert publisher.stop_reason(lambda: active[0]) == ""  # within the grace
        time.sleep(0.3)
        assert publisher.stop_reason(lambda: active[0]) == "no job is left and no window is open"
        active[0] = True
        assert publisher.stop_reason(lambda: active[0]) == ""  # work came in: it goes on
        window.hold()  # a window in the tray asks it to stop once done, though it watches
        ledger.controller_runs.exit_when_idle(publisher.run_id, True)
        active[0] = False
        publisher.stop_reason(lambda: active[0])
        time.sleep(0.3)
        assert publisher.stop_reason(lambda: active[0]) == "no job is left and no window is open"
        ledger.controller_runs.request_stop(publisher.run_id)
        assert publisher.stop_reason(lambda: active[0]) == "asked to through the ledger"
        window.release()


def test_one_started_by_hand_never_stops_by_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(published, "IDLE_GRACE_S", 0.0)
    with Ledger(tmp_path) as ledger:
        publisher = StatusPublisher(ledger, "terminal")
        publisher.new_run()
        publisher.flush(ControllerStatus())
        assert publisher.stop_reason(lambda: False) == ""
        assert publisher.stop_reason(lambda: False) == ""

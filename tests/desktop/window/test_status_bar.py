"""The status bar says how the connection is, how deep ComfyUI's queue is, our share, the rate."""

from __future__ import annotations

from dataclasses import replace

from core.controller.status import Connection, ControllerStatus
from desktop.window.status_bar import JobStatusBar


def test_connected_status(qtbot) -> None:
    bar = JobStatusBar()
    qtbot.addWidget(bar)
    bar.show_status(
        ControllerStatus(
            connection=Connection.connected, server_queue=5, in_flight=2, done_per_minute=3.25
        )
    )
    assert bar.connection.text() == "● Connected"
    assert bar.queue.text() == "ComfyUI queue: 5"
    assert bar.flight.text() == "Ours in flight: 2 / cap 3"
    assert bar.rate.text() == "3.2 jobs/min"


def test_reconnecting_offline_and_paused(qtbot) -> None:
    bar = JobStatusBar()
    qtbot.addWidget(bar)
    bar.show_status(ControllerStatus(connection=Connection.reconnecting))
    assert bar.connection.text() == "● Reconnecting…"
    bar.show_status(ControllerStatus(connection=Connection.offline, paused=True, last_error="boom"))
    assert bar.connection.text() == "● Offline"
    assert bar.connection.toolTip() == "boom"
    assert bar.flight.text().endswith("dispatch paused")


def test_a_local_error_and_a_stopped_controller_are_shown_not_blamed_on_the_server(
    qtbot,
) -> None:
    bar = JobStatusBar()
    qtbot.addWidget(bar)
    busy = "changes from other processes: ledger /l/batchline.db: database is locked"
    bar.show_status(ControllerStatus(connection=Connection.connected, local_error=busy))
    assert bar.connection.text() == "● Connected · local error, retrying"
    assert bar.connection.toolTip() == busy
    full = "cannot write the ledger /l/batchline.db (database or disk is full): ..."
    bar.show_status(ControllerStatus(connection=Connection.connected, stopped=full))
    assert bar.connection.text() == "● Controller stopped"
    assert bar.connection.toolTip() == full


def test_demo_badge_when_connected_to_the_simulator(qtbot) -> None:
    bar = JobStatusBar(demo=True)
    qtbot.addWidget(bar)
    bar.show_status(ControllerStatus(connection=Connection.connected))
    assert bar.connection.text() == "● Demo server"


def test_the_connection_names_the_server_it_is_connected_to() -> None:
    from core.controller.status import Connection, ControllerStatus
    from desktop.window.status_bar import connection_text

    status = ControllerStatus(connection=Connection.connected, server="http://10.0.0.5:8188")
    assert connection_text(status, demo=False)[0] == "Connected to 10.0.0.5:8188"
    assert connection_text(status, demo=True)[0] == "Demo server"
    offline = ControllerStatus(connection=Connection.offline, server="http://10.0.0.5:8188")
    assert connection_text(offline, demo=False)[0] == "Offline"


def test_several_servers_are_counted_and_listed() -> None:
    from core.controller.status import ServerStatus
    from desktop.window.status_bar import connection_text, connection_tooltip, flight_text

    one = ServerStatus("http://gpu-1:8188", Connection.connected, queue=2)
    two = ServerStatus("http://gpu-2:8188", Connection.connected, queue=1)
    status = ControllerStatus(connection=Connection.connected, in_flight=3, servers=(one, two))
    assert connection_text(status, demo=False) == ("Connected to 2 servers", "#1e7b34")
    assert flight_text(status) == "Ours in flight: 3 / cap 3 × 2 servers"
    deep = replace(status, queue_depth=8)  # short jobs: the cap left at its default adapts
    assert flight_text(deep) == "Ours in flight: 3 / queue 8 (auto, cap 3) × 2 servers"
    down = ServerStatus("http://gpu-2:8188", Connection.offline, last_error="refused")
    status = ControllerStatus(connection=Connection.connected, servers=(one, down))
    assert connection_text(status, demo=False) == ("Connected to 1 of 2 servers", "#b36b00")
    assert connection_tooltip(status) == (
        "gpu-1:8188: connected, queue 2\ngpu-2:8188: offline, queue 0 (refused)"
    )
    status = ControllerStatus(connection=Connection.offline, servers=(down, down))
    assert connection_text(status, demo=False)[0] == "Offline"


def test_a_passing_message_gets_room_and_the_figures_come_back(qtbot) -> None:
    bar = JobStatusBar()
    qtbot.addWidget(bar)
    bar.resize(700, 30)
    bar.show()
    bar.show_status(ControllerStatus(connection=Connection.connected, server_queue=2))
    figures = [bar.queue, bar.flight, bar.rate]
    assert all(label.isVisible() for label in figures)
    bar.showMessage("Retry")
    assert all(label.isVisible() for label in figures), "a short message fits beside them"
    tip = "Queue a copy of the selected out-of-memory job at a smaller size, to fit the GPU"
    bar.showMessage(tip)
    assert not bar.rate.isVisible()
    assert bar.connection.isVisible()
    free = bar.width() - sum(w.width() for w in [bar.connection, *figures] if w.isVisible())
    assert bar.fontMetrics().horizontalAdvance(tip) < free
    bar.clearMessage()
    assert all(label.isVisible() for label in figures)

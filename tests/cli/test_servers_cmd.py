"""`batchline servers` says, for each configured server, whether it answers and how busy it is."""

from __future__ import annotations

from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli


def test_each_server_is_checked(cli: Cli, sim_thread: SimulatorThread) -> None:
    cli.server = f"{sim_thread.url},http://127.0.0.1:9"
    result = cli("servers")
    assert result.code == 1, "one of them does not answer"
    up, down = result.out.splitlines()
    assert up.startswith(f"{sim_thread.url}  ComfyUI 0.3.64  ")
    assert up.endswith("queue 0 running, 0 waiting")
    plain = "nothing listens on that port (is ComfyUI started?)"
    assert down.startswith(f"http://127.0.0.1:9  unreachable: {plain} (GET /system_stats: ")
    reports = cli("servers", "--json").json()
    assert [r["reachable"] for r in reports] == [True, False]
    assert reports[1]["reason"] == plain
    assert "cannot connect" in reports[1]["error"]
    assert reports[0]["devices"][0]["type"] in ("cpu", "cuda")


def test_all_answering_is_exit_0(cli: Cli, sim_thread: SimulatorThread) -> None:
    cli.server = sim_thread.url
    assert cli("servers").code == 0

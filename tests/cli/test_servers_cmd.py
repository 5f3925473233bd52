"""`batchline servers` says, for each configured server, whether it answers and how busy it is."""

from __future__ import annotations

import re

import httpx

from core.ledger import Ledger
from core.ledger.settings import MODELS_ASKED
from core.placement.server_offer import offer_from_object_info
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli
from tests.core.controller.model_servers import BASE, REFINER, ModelServers, model_servers

__all__ = ["model_servers"]


def test_each_server_is_checked(cli: Cli, sim_thread: SimulatorThread) -> None:
    cli.server = f"{sim_thread.url},http://127.0.0.1:9"
    result = cli("servers")
    assert result.code == 1, "one of them does not answer"
    up, down = [line for line in result.out.splitlines() if not line.startswith("  ")]
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


def test_each_server_says_what_it_can_run(cli: Cli, model_servers: ModelServers) -> None:
    """Counts by default, the files with --models, all of it in --json; one not read says so."""
    cli.server = ",".join(model_servers.urls)
    with Ledger(cli.home) as ledger:
        ledger.server_offers.store(
            model_servers.full.url,
            offer_from_object_info(httpx.get(model_servers.full.url + "/object_info").json()),
        )
    lines = cli("servers").out.splitlines()
    base_at = lines.index(next(x for x in lines if x.startswith(model_servers.base_only.url)))
    assert (
        lines[base_at + 1] == "  models: not read yet (the controller reads them when it connects)"
    )
    full_at = lines.index(next(x for x in lines if x.startswith(model_servers.full.url)))
    assert re.match(r"  read at \d\d:\d\d:\d\d: \d+ node classes$", lines[full_at + 1])
    assert "checkpoints 2" in lines[full_at + 2]
    listed = cli("servers", "--models").out.splitlines()
    at = listed.index("  checkpoints (2):")
    assert listed[at + 1 : at + 3] == [f"    {BASE}", f"    {REFINER}"]
    reports = {r["server"]: r["offer"] for r in cli("servers", "--json").json()}
    assert reports[model_servers.full.url]["models"]["checkpoints"] == [BASE, REFINER]
    assert reports[model_servers.full.url]["node_classes"] > 10
    assert reports[model_servers.base_only.url] == {
        "server": model_servers.base_only.url,
        "known": False,
        "read_at": None,
        "node_classes": 0,
        "models": {},
    }


def test_refresh_asks_the_controller_to_read_the_models_again(
    cli: Cli, sim_thread: SimulatorThread
) -> None:
    cli.server = sim_thread.url
    with Ledger(cli.home) as ledger:
        before = MODELS_ASKED.get(ledger)
    result = cli("servers", "--refresh")
    assert result.code == 0
    assert "the next controller does it" in result.err  # none runs here
    with Ledger(cli.home) as ledger:
        assert MODELS_ASKED.get(ledger) != before

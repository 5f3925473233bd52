"""What the doors say of placement: per server what a batch lacks (servers by host and port),
why a pending job waits, each server's model lists; over two real simulators' offers."""

from __future__ import annotations

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.controller.placing import NeedsReader, servers_now
from core.controller.placing_said import (
    WaitingReasons,
    batch_placement,
    host_text,
    listing_counts,
    offer_json,
    spec_placement,
    waiting_text,
)
from core.ledger import Ledger
from core.ledger.settings import SERVER
from tests.core.controller.model_servers import (
    BASE,
    NOWHERE,
    REFINER,
    ModelServers,
    add_ckpt_preset,
    ckpt_workflow,
    model_servers,
)

__all__ = ["model_servers"]


def grid(*checkpoints: str, seeds: int = 1) -> BatchSpec:
    return BatchSpec(
        seeds=SeedPlan(count=seeds), grid=(GridAxis("4.ckpt_name", tuple(checkpoints)),)
    )


def set_up(ledger: Ledger, servers: ModelServers) -> None:
    SERVER.set(ledger, ",".join(servers.urls))
    servers.store_offers(ledger)
    add_ckpt_preset(ledger)


def test_a_batch_one_server_can_run_runs_and_says_what_the_other_lacks(
    ledger: Ledger, model_servers: ModelServers
) -> None:
    set_up(ledger, model_servers)
    _, jobs = queue_batch(ledger, "ckpt", grid(BASE, REFINER))
    placement = batch_placement(ledger, jobs)
    full, base_only = host_text(model_servers.full.url), host_text(model_servers.base_only.url)
    assert placement.known
    assert placement.runs
    assert not placement.warning()
    assert placement.text() == f"{full} has everything; {base_only} lacks {REFINER}"
    data = placement.to_json()
    assert data["unplaceable"] == 0
    lacking = next(s for s in data["servers"] if s["server"] == model_servers.base_only.url)
    assert lacking["missing"] == [{"kind": "model_file", "name": REFINER, "folder": "checkpoints"}]


def test_a_batch_no_server_can_run_says_so_plainly(
    ledger: Ledger, model_servers: ModelServers
) -> None:
    set_up(ledger, model_servers)
    workflow = ckpt_workflow()
    placement = spec_placement(ledger, workflow, [{"4.ckpt_name": NOWHERE}, {"4.seed": 2}])
    assert not placement.runs
    assert placement.fit.unplaceable == 1
    warning = placement.warning()
    assert warning.startswith("no server can run 1 of its jobs now (")
    assert f"{host_text(model_servers.full.url)} lacks {NOWHERE}" in warning
    assert warning.endswith("they wait until one can")


def test_nothing_is_said_while_no_offer_is_read(ledger: Ledger) -> None:
    add_ckpt_preset(ledger)
    placement = spec_placement(ledger, ckpt_workflow(), [{"4.ckpt_name": NOWHERE}])
    assert not placement.known
    assert placement.runs
    assert placement.text() == ""
    assert placement.warning() == ""


def test_a_pending_job_says_why_it_waits_and_a_runnable_one_says_nothing(
    ledger: Ledger, model_servers: ModelServers
) -> None:
    set_up(ledger, model_servers)
    _, jobs = queue_batch(ledger, "ckpt", grid(BASE, NOWHERE, seeds=3))
    reasons = WaitingReasons(ledger)
    said = {job: reasons.of(ledger.job(job)) for job in jobs}
    assert sorted(said.values()) == [""] * 3 + [f"no server has {NOWHERE}"] * 3
    assert waiting_text(said[jobs[-1]]) == f"waiting: no server has {NOWHERE}"
    assert waiting_text("") == ""


def test_waiting_reasons_read_the_servers_once_per_refresh(
    ledger: Ledger, model_servers: ModelServers
) -> None:
    """A server that comes to list the file clears the reason at the next refresh only."""
    set_up(ledger, model_servers)
    _, (job,) = queue_batch(ledger, "ckpt", grid(NOWHERE))
    reasons = WaitingReasons(ledger)
    assert reasons.of(ledger.job(job)) == f"no server has {NOWHERE}"
    model_servers.full.set_models({"checkpoints": [BASE, REFINER, NOWHERE]})
    model_servers.store_offers(ledger)
    assert reasons.of(ledger.job(job)) == f"no server has {NOWHERE}"  # cached until refreshed
    reasons.refresh()
    assert reasons.of(ledger.job(job)) == ""


def test_a_job_not_pending_has_no_waiting_reason(
    ledger: Ledger, model_servers: ModelServers
) -> None:
    set_up(ledger, model_servers)
    _, (job,) = queue_batch(ledger, "ckpt", grid(NOWHERE))
    ledger.request_cancel_many([job])
    assert WaitingReasons(ledger).of(ledger.job(job)) == ""


def test_an_offer_reads_as_counts_and_files_per_folder(
    ledger: Ledger, model_servers: ModelServers
) -> None:
    set_up(ledger, model_servers)
    stored = ledger.server_offers.all()
    data = offer_json(model_servers.full.url, stored[model_servers.full.url])
    assert data["known"]
    assert data["node_classes"] > 10
    assert data["models"]["checkpoints"] == [BASE, REFINER]
    assert data["read_at"].endswith("Z")
    assert "checkpoints 2" in listing_counts(data["models"])
    assert offer_json("http://elsewhere:1", None)["known"] is False
    assert listing_counts({}) == "no model files"
    assert listing_counts({"gligen": [], "loras": ["a", "b"]}) == "loras 2"


def test_the_servers_shown_are_the_configured_ones(
    ledger: Ledger, model_servers: ModelServers
) -> None:
    set_up(ledger, model_servers)
    servers = servers_now(ledger, [model_servers.base_only.url])
    reader = NeedsReader(ledger)
    _, (job,) = queue_batch(ledger, "ckpt", grid(REFINER))
    assert not servers.place(reader.of_job(ledger.job(job))).placeable
    reasons = WaitingReasons(ledger, [model_servers.base_only.url])
    assert reasons.of(ledger.job(job)) == f"no server has {REFINER}"


def test_a_refresh_says_whether_the_servers_changed(
    ledger: Ledger, model_servers: ModelServers
) -> None:
    set_up(ledger, model_servers)
    reasons = WaitingReasons(ledger)
    assert reasons.refresh() is True  # the first read
    assert reasons.refresh() is False
    model_servers.full.set_models({"checkpoints": [NOWHERE]})
    model_servers.store_offers(ledger)
    assert reasons.refresh() is True

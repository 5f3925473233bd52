"""The doors' reading of placement: a job's needs from its batch, why it waits, a batch's fit."""

from __future__ import annotations

import copy
from typing import Any

from core.batch import BatchSpec, GridAxis, SeedPlan, queue_batch
from core.controller.placing import (
    NeedsCache,
    NeedsReader,
    Servers,
    batch_fit,
    job_needs_of,
    servers_now,
    spec_needs,
    why_waiting,
)
from core.ledger import Ledger, PresetContent
from core.ledger.settings import SERVER
from core.placement.placement import placement_text
from core.placement.server_offer import offer_from_object_info
from core.presets import workflow_hash
from tests.core.helpers import NOISE_WORKFLOW

BASE = "sd_xl_base_1.0.safetensors"
REFINER = "sd_xl_refiner_1.0.safetensors"
SD15 = "v1-5-pruned-emaonly.safetensors"
CKPT_WORKFLOW: dict[str, Any] = copy.deepcopy(NOISE_WORKFLOW) | {
    "4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": BASE}}
}
CLASSES = ("EmptyImage", "ImageAddNoise", "SaveImage")
GPU1, GPU2 = "http://gpu-1:8188", "http://gpu-2:8188"


def offer_info(*checkpoints: str) -> dict[str, Any]:
    info: dict[str, Any] = {c: {"input": {"required": {}}} for c in CLASSES}
    info["CheckpointLoaderSimple"] = {"input": {"required": {"ckpt_name": [list(checkpoints)]}}}
    return info


def store(ledger: Ledger, server: str, *checkpoints: str) -> None:
    ledger.server_offers.store(server, offer_from_object_info(offer_info(*checkpoints)))


def queue_ckpts(ledger: Ledger, *checkpoints: str, seeds: int = 1) -> list[str]:
    if "ckpt" not in ledger.presets.names():
        ledger.presets.add("ckpt", PresetContent(workflow_hash(CKPT_WORKFLOW), CKPT_WORKFLOW))
    spec = BatchSpec(
        seeds=SeedPlan(count=seeds), grid=(GridAxis("4.ckpt_name", tuple(checkpoints)),)
    )
    return queue_batch(ledger, "ckpt", spec)[1]


def test_a_job_needs_the_checkpoint_its_values_name(ledger: Ledger) -> None:
    base, sd15 = queue_ckpts(ledger, BASE, SD15)
    assert job_needs_of(ledger, ledger.job(base)).main_models == {BASE}
    assert job_needs_of(ledger, ledger.job(sd15)).main_models == {SD15}
    assert {"CheckpointLoaderSimple", "SaveImage"} <= job_needs_of(
        ledger, ledger.job(sd15)
    ).node_classes


def test_needs_are_worked_out_once_per_workflow_and_model_values(ledger: Ledger) -> None:
    """A seed sweep shares one entry; the checkpoint's values make one each."""
    jobs = queue_ckpts(ledger, BASE, SD15, seeds=4)
    reader = NeedsReader(ledger)
    needs = [reader.of_job(ledger.job(job)) for job in jobs]
    assert len({id(n) for n in needs}) == 2
    assert sorted(min(n.main_models) for n in needs) == [BASE] * 4 + [SD15] * 4


def test_a_value_that_removes_a_model_file_removes_the_need() -> None:
    custom = {"1": {"class_type": "MyLoader", "inputs": {"weights": "x.safetensors"}}}
    cache = NeedsCache()
    assert cache.needs("h", custom, {}).files == {"x.safetensors"}
    assert cache.needs("h", custom, {"1.weights": "none"}).files == frozenset()


def test_a_job_no_server_can_run_says_which_file_none_has(ledger: Ledger) -> None:
    store(ledger, GPU1, SD15)
    store(ledger, GPU2, SD15, BASE)
    base, refiner = queue_ckpts(ledger, BASE, REFINER)
    servers = servers_now(ledger, [GPU1, GPU2])
    assert why_waiting(ledger, ledger.job(base), servers) == ""
    assert why_waiting(ledger, ledger.job(refiner), servers) == f"no server has {REFINER}"


def test_without_a_controller_the_configured_servers_count(ledger: Ledger) -> None:
    """The settings name gpu-1 only: gpu-2's offer (a server removed since) is not counted."""
    store(ledger, GPU1, SD15)
    store(ledger, GPU2, BASE)
    SERVER.set(ledger, GPU1)
    (base,) = queue_ckpts(ledger, BASE)
    assert why_waiting(ledger, ledger.job(base)) == f"no server has {BASE}"


def test_a_batch_fit_says_per_server_what_is_missing(ledger: Ledger) -> None:
    store(ledger, GPU1, BASE)
    store(ledger, GPU2, BASE, REFINER)
    needs = spec_needs(CKPT_WORKFLOW, [{"4.ckpt_name": BASE}, {"4.ckpt_name": REFINER}])
    fit = batch_fit(ledger, needs, servers_now(ledger, [GPU1, GPU2]))
    assert fit.ready
    assert placement_text(fit) == f"{GPU2} has everything; {GPU1} lacks {REFINER}"


def test_a_server_connected_but_not_read_yet_is_not_held_against(ledger: Ledger) -> None:
    store(ledger, GPU1, SD15)
    (base,) = queue_ckpts(ledger, BASE)
    offers = {url: s.offer for url, s in ledger.server_offers.all().items()}
    unread = Servers(offers, frozenset({GPU1}), frozenset({GPU2}))
    assert unread.why_waiting(job_needs_of(ledger, ledger.job(base))) == ""
    read = Servers(offers, frozenset({GPU1}))
    assert read.why_waiting(job_needs_of(ledger, ledger.job(base))) == f"no server has {BASE}"

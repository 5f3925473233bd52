"""Which servers can run a job or a batch, and the artist's words when none can."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from core.placement.needs import JobNeeds, job_needs
from core.placement.placement import (
    Lack,
    Missing,
    fit_batch,
    missing_on,
    place,
    placement_text,
)
from core.placement.server_offer import ServerOffer, offer_from_object_info

DATA = Path(__file__).parent / "data"
BASE, REFINER = "sd_xl_base_1.0.safetensors", "sd_xl_refiner_1.0.safetensors"
BASE_ONLY = {"4": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": BASE}}}
CLASSES = ["CheckpointLoaderSimple", "LoraLoader", "KSamplerAdvanced", "SaveImage"]


def offer(
    *checkpoints: str, loras: tuple[str, ...] = (), classes: list[str] = CLASSES
) -> ServerOffer:
    """A server's offer as its /object_info would make it."""
    info: dict[str, Any] = {
        "CheckpointLoaderSimple": {"input": {"required": {"ckpt_name": [list(checkpoints)]}}},
        "LoraLoader": {"input": {"required": {"lora_name": [list(loras)]}}},
    }
    info |= {name: {"input": {}} for name in classes if name not in info}
    return offer_from_object_info({k: v for k, v in info.items() if k in classes})


def refiner_needs() -> JobNeeds:
    return job_needs(json.loads((DATA / "sdxl_refiner_prompt.json").read_text("utf-8")))


def servers() -> dict[str, ServerOffer]:
    """The base+refiner story: gpu-1 has neither SDXL checkpoint, gpu-2 has both."""
    every = [*CLASSES, *refiner_needs().node_classes]
    return {
        "gpu-1": offer("v1-5-pruned-emaonly.safetensors", classes=every),
        "gpu-2": offer(BASE, REFINER, classes=every),
    }


def test_a_job_goes_only_to_the_server_with_its_checkpoints() -> None:
    placement = place(refiner_needs(), servers(), connected={"gpu-1", "gpu-2"})
    assert placement.servers == ("gpu-2",)
    assert placement.placeable
    assert placement_text(placement) == ""
    gpu_1 = placement.fits[0]
    assert gpu_1.missing == (
        Missing(Lack.model_file, BASE, "checkpoints"),
        Missing(Lack.model_file, REFINER, "checkpoints"),
    )
    assert placement_text(gpu_1) == f"gpu-1 lacks {BASE} and {REFINER}"


def test_a_job_no_server_can_run_says_which_file_none_has() -> None:
    offers = servers() | {"gpu-2": offer(BASE, classes=[*CLASSES, *refiner_needs().node_classes])}
    placement = place(refiner_needs(), offers, connected={"gpu-1", "gpu-2"})
    assert placement.servers == ()
    assert placement_text(placement) == f"no server has {REFINER}"


def test_a_job_only_a_server_away_can_run_waits_for_it() -> None:
    placement = place(refiner_needs(), servers(), connected={"gpu-1"})
    assert placement.servers == ()
    assert placement_text(placement) == (
        f"only gpu-2 has {BASE} and {REFINER}, and it is not connected"
    )
    nobody = place(refiner_needs(), servers() | {"gpu-3": servers()["gpu-2"]}, connected=set())
    assert placement_text(nobody) == (
        "only gpu-2 and gpu-3 have everything it needs, and they are not connected"
    )
    assert placement_text(placement.fits[1]) == "gpu-2 has everything (not connected)"


def test_files_split_over_servers_are_said_per_server() -> None:
    offers = {"a": offer(BASE), "b": offer(REFINER)}
    two = job_needs(
        BASE_ONLY
        | {"12": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": REFINER}}}
    )
    assert placement_text(place(two, offers, {"a", "b"})) == (
        f"no one server has all it needs: a lacks {REFINER}; b lacks {BASE}"
    )


def test_a_missing_node_class_is_named_and_its_files_not_held_against_the_server() -> None:
    needs = job_needs(BASE_ONLY | {"9": {"class_type": "SaveImage", "inputs": {}}})
    bare = offer(classes=["SaveImage"])
    assert missing_on(needs, bare) == (Missing(Lack.node_class, "CheckpointLoaderSimple"),)
    assert placement_text(place(needs, {"s": bare}, {"s"})) == (
        "no server has the node CheckpointLoaderSimple"
    )
    assert placement_text(place(needs, {}, set())) == "no server is set up"


def test_many_missing_files_are_counted_past_three() -> None:
    names = [f"l{i}.safetensors" for i in range(5)]
    prompt = {
        str(i): {"class_type": "LoraLoader", "inputs": {"lora_name": n}}
        for i, n in enumerate(names)
    }
    fit = place(job_needs(prompt), {"gpu-1": offer()}, {"gpu-1"}).fits[0]
    assert (
        placement_text(fit)
        == "gpu-1 lacks l0.safetensors, l1.safetensors, l2.safetensors and 2 more"
    )


def test_a_batch_summary_puts_the_servers_that_can_run_it_first() -> None:
    batch = [refiner_needs(), job_needs(BASE_ONLY)]
    summary = fit_batch(batch, servers(), connected={"gpu-1", "gpu-2"})
    assert placement_text(summary) == f"gpu-2 has everything; gpu-1 lacks {BASE} and {REFINER}"
    assert summary.ready
    assert (summary.jobs, summary.unplaceable) == (2, 0)
    away = fit_batch(batch, servers(), connected={"gpu-1"})
    assert not away.ready
    assert away.unplaceable == 2
    assert placement_text(fit_batch(batch, {}, set())) == "no server is set up"


def test_a_custom_input_the_server_lists_no_files_for_is_not_held_against_it() -> None:
    needs = job_needs({"1": {"class_type": "UnetLoaderGGUF", "inputs": {"unet_name": "f.gguf"}}})
    unknown = offer_from_object_info(
        {"UnetLoaderGGUF": {"input": {"required": {"unet_name": [[]]}}}}
    )
    listing = offer_from_object_info(
        {"UnetLoaderGGUF": {"input": {"required": {"unet_name": [["g.gguf"]]}}}}
    )
    placement = place(needs, {"a": unknown, "b": listing}, {"a", "b"})
    assert placement.servers == ("a",)
    assert placement_text(placement.fits[1]) == "b lacks f.gguf"


FILES = ["a.safetensors", "b.safetensors", "c.ckpt", "d.ckpt"]


@given(
    job=st.lists(st.sampled_from(FILES), min_size=1, max_size=3, unique=True),
    held=st.dictionaries(
        st.sampled_from(["s1", "s2", "s3"]), st.sets(st.sampled_from(FILES)), max_size=3
    ),
    connected=st.sets(st.sampled_from(["s1", "s2", "s3"])),
)
def test_a_job_can_run_exactly_where_every_file_is_listed_and_the_server_connected(
    job: list[str], held: dict[str, set[str]], connected: set[str]
) -> None:
    prompt = {
        str(i): {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": f}}
        for i, f in enumerate(job)
    }
    offers = {name: offer(*sorted(files)) for name, files in held.items()}
    placement = place(job_needs(prompt), offers, connected)
    assert set(placement.servers) == {
        name for name, files in held.items() if set(job) <= files and name in connected
    }
    for fit in placement.fits:
        assert {m.name for m in fit.missing} == set(job) - held[fit.server]
    text = placement_text(placement)
    assert (text == "") == placement.placeable

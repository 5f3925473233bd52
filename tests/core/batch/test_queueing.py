"""Queueing from stored presets, and "retry smaller" after out-of-memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.batch import (
    BatchSpec,
    GridAxis,
    SeedPlan,
    queue_batch,
    queue_smaller,
    shrink_choices,
)
from core.batch.wildcards import expand_random
from core.errors import CompositionError, IllegalTransition
from core.job_state import JobState, Reason
from core.ledger import Ledger, PresetContent
from core.ledger.settings import WILDCARDS_FOLDER, wildcards_folder
from core.presets import workflow_hash
from tests.core.controller.conftest import queue
from tests.core.helpers import NOISE_WORKFLOW


def _big_job_out_of_memory(ledger: Ledger) -> str:
    """A 512x768 job of preset "big" that failed out of memory."""
    big = json.loads(json.dumps(NOISE_WORKFLOW))
    big["1"]["inputs"].update(width=512, height=768)
    ledger.presets.add("big", PresetContent(workflow_hash(big), big))
    (job_id,) = queue_batch(ledger, "big", BatchSpec(seeds=SeedPlan(count=1)))[1]
    _fail(ledger, job_id, Reason.oom)
    return job_id


def _fail(ledger: Ledger, job_id: str, reason: Reason) -> None:
    ledger.submit_attempt(job_id, f"pid-{job_id}", "http://x", "wf")
    ledger.observe_failed(f"pid-{job_id}", reason)


def test_retry_smaller_adds_a_smaller_job_to_the_same_batch(ledger: Ledger) -> None:
    job_id = _big_job_out_of_memory(ledger)
    new_id = queue_smaller(ledger, job_id)
    old, new = ledger.job(job_id), ledger.job(new_id)
    assert (new.batch, new.state, new.requester) == (old.batch, JobState.pending, old.requester)
    assert (new.params["1.width"], new.params["1.height"]) == (384, 576)
    assert new.params["2.seed"] == old.params["2.seed"]


def test_retry_smaller_only_follows_out_of_memory(ledger: Ledger) -> None:
    (job_id,) = queue(ledger, 1)
    _fail(ledger, job_id, Reason.execution_error)
    with pytest.raises(IllegalTransition, match="did not fail out of memory"):
        queue_smaller(ledger, job_id)


def test_seed_inputs_chosen_at_queue_time_replace_the_detected_ones(ledger: Ledger) -> None:
    spec = BatchSpec(seeds=SeedPlan(count=3, start=10), requester="a")
    _, ids = queue_batch(ledger, "noise", spec, seed_inputs=["1.color"])
    assert [ledger.job(i).params for i in ids] == [
        {"1.color": 10},
        {"1.color": 11},
        {"1.color": 12},
    ]


def test_requester_defaults_to_the_os_user(ledger: Ledger, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("getpass.getuser", lambda: "ada")
    batch, ids = queue_batch(ledger, "noise", BatchSpec(seeds=SeedPlan(count=1)))
    assert batch.requester == "ada"
    assert ledger.job(ids[0]).requester == "ada"


def test_paths_follow_override_then_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core.paths import HOME_ENV, data_dir, default_output_dir

    monkeypatch.setenv(HOME_ENV, str(tmp_path / "env"))
    assert data_dir(tmp_path / "flag") == tmp_path / "flag"
    assert data_dir() == tmp_path / "env"
    monkeypatch.delenv(HOME_ENV)
    assert data_dir().name.lower() == "batchline"
    assert default_output_dir().name == "Batchline"


def test_retry_smaller_shrinks_what_the_artist_chose(ledger: Ledger) -> None:
    job_id = _big_job_out_of_memory(ledger)
    assert shrink_choices(ledger, job_id)["size"] == {"1.width": 512, "1.height": 768}
    new = ledger.job(queue_smaller(ledger, job_id, 0.5, ["size"]))
    assert (new.params["1.width"], new.params["1.height"]) == (256, 384)
    with pytest.raises(CompositionError, match="no batch size left to reduce"):
        queue_smaller(ledger, job_id, shrink=["batch size"])


TEXTS = {
    **NOISE_WORKFLOW,
    "4": {"class_type": "PrimitiveStringMultiline", "inputs": {"value": "a __animals__"}},
}


def _texts(ledger: Ledger) -> None:
    ledger.presets.add("texts", PresetContent(workflow_hash(TEXTS), TEXTS))


def test_the_stored_spec_holds_the_all_texts_as_an_axis_with_zips_and_modes(
    ledger: Ledger,
) -> None:
    _texts(ledger)
    spec = BatchSpec(
        seeds=SeedPlan(count=2),
        overrides=("4.value={fox|owl} at {dawn|dusk}",),
        grid=(GridAxis("2.strength", (0.25, 0.75)), GridAxis("1.width", (64, 96))),
        zips=(("2.strength", "1.width"),),
        wildcards={"4.value": "all"},
    )
    batch, ids = queue_batch(ledger, "texts", spec)
    assert len(ids) == 2 * 2 * 4
    stored = ledger.batch(batch.id).spec
    assert stored["grid"] == [
        {"input": "2.strength", "values": [0.25, 0.75]},
        {"input": "1.width", "values": [64, 96]},
        {
            "input": "4.value",
            "values": ["fox at dawn", "fox at dusk", "owl at dawn", "owl at dusk"],
        },
    ]
    assert stored["zips"] == [["2.strength", "1.width"]]
    assert stored["wildcards"] == {"4.value": "all"}
    assert stored["overrides"] == {}


def test_wildcard_files_are_read_from_the_setting_else_the_data_folder(
    ledger: Ledger, tmp_path: Path
) -> None:
    _texts(ledger)
    assert wildcards_folder(ledger) == ledger.folder / "wildcards"
    with pytest.raises(CompositionError, match=r"no wildcard file 'animals.txt' in .*home"):
        queue_batch(ledger, "texts", BatchSpec(seeds=SeedPlan(count=2)))
    assert ledger.jobs() == []
    assert ledger.batches() == []
    chosen = tmp_path / "mine"
    chosen.mkdir()
    (chosen / "animals.txt").write_text("fox\nowl\nhare\n", encoding="utf-8")
    WILDCARDS_FOLDER.set(ledger, chosen)
    _, ids = queue_batch(ledger, "texts", BatchSpec(seeds=SeedPlan(count=6)))
    texts = [ledger.job(job_id).params["4.value"] for job_id in ids]
    assert set(texts) <= {"a fox", "a owl", "a hare"}
    assert texts == [expand_random("a __animals__", s, chosen, salt="4.value") for s in range(6)]


def test_a_refused_wildcard_queues_nothing(ledger: Ledger) -> None:
    _texts(ledger)
    bomb = BatchSpec(
        overrides={"4.value": "{a|b|c|d|e|f|g|h|i|j}" * 5}, wildcards={"4.value": "all"}
    )
    with pytest.raises(CompositionError, match=r"node 4, input 'value': its wildcards expand"):
        queue_batch(ledger, "texts", bomb)
    assert ledger.jobs() == []

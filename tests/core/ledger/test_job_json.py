"""Tests for core.ledger.job_json: a job as JSON (`batchline jobs --json`, the HTTP API), read
one by one or in bulk, the same either way."""

from __future__ import annotations

from core.ledger import Ledger, NewJob, PresetContent
from core.ledger.job_json import iso, job_json, jobs_json
from tests.core.helpers import NOISE_WORKFLOW, succeed


def test_iso_is_utc_to_the_millisecond() -> None:
    assert iso(None) is None
    assert iso(0.1234) == "1970-01-01T00:00:00.123Z"


def test_a_job_with_its_attempt_outputs_and_transitions(ledger: Ledger) -> None:
    ledger.presets.add("noise", PresetContent("h", NOISE_WORKFLOW))
    batch, (first, second) = ledger.create_batch(
        "noise", [NewJob({"2.seed": 1}), NewJob({"2.seed": 2})], requester="artist"
    )
    ledger.submit_attempt(first, "p1", "http://x", "h")
    ledger.observe_queued("p1", 1)
    ledger.observe_running("p1")
    succeed(ledger, "p1", ["out/a.png"])
    one = job_json(ledger, ledger.job(first))
    assert (one["id"], one["batch"], one["preset"], one["state"]) == (
        first,
        batch.id,
        "noise",
        "succeeded",
    )
    assert one["params"] == {"2.seed": 1}
    assert one["outputs"] == ["out/a.png"]
    assert [a["prompt_id"] for a in one["attempts"]] == ["p1"]
    assert one["attempts"][0]["result"] == "succeeded"
    assert [t["to"] for t in one["transitions"]][-1] == "succeeded"
    assert all(t["at"].endswith("Z") for t in one["transitions"])
    both = jobs_json(ledger, [ledger.job(first), ledger.job(second)])
    assert both == [one, job_json(ledger, ledger.job(second))], "the bulk read is the same"
    assert both[1]["attempts"] == []

"""What an out-of-memory failure tells about memory, from the messages ComfyUI passes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.batch.memory_told import MemoryTold, memory_told, read_memory, size_text
from core.job_state import Reason
from core.ledger import NewJob, PresetContent
from core.ledger.attempt_error import AttemptError, ErrorKind
from core.presets import workflow_hash
from simulator.faults import OOM_MESSAGE

RECORDING = Path(__file__).parents[2] / "data" / "recordings" / "history_execution_error_oom.json"
GIB = 2**30


def recorded_message() -> str:
    """The real ComfyUI 0.3.64's (on CPU) execution_error for 4,096 pictures of 16384x16384."""
    history = json.loads(RECORDING.read_text())["response"]
    (entry,) = history.values()
    errors = [m[1] for m in entry["status"]["messages"] if m[0] == "execution_error"]
    return str(errors[0]["exception_message"])


def test_the_recorded_cpu_failure_says_what_it_asked_and_this_computer_what_it_has() -> None:
    told = read_memory(recorded_message(), "http://127.0.0.1:8188")
    assert told.asked == 4398046511104
    assert size_text(told.asked) == "4 TiB"
    assert told.has_local
    assert told.has is not None
    assert told.has > 0
    remote = read_memory(recorded_message(), "http://gpu-box:8188")
    assert (remote.asked, remote.has) == (4398046511104, None), "a remote server: not known"
    assert remote.fitting_factor("batch size") is None


@pytest.mark.parametrize(
    ("message", "asked", "has", "free"),
    [
        (OOM_MESSAGE, 2.5 * GIB, 23.99 * GIB, 0),
        (
            "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "23.64 GiB of which 1.23 GiB is free.",
            2 * GIB,
            23.64 * GIB,
            1.23 * GIB,
        ),
        (
            "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 23.65 GiB total capacity; "
            "22.71 GiB already allocated; 5.62 MiB free; 22.85 GiB reserved in total)",
            20 * 2**20,
            23.65 * GIB,
            5.62 * 2**20,
        ),
    ],
)
def test_gpu_messages_say_both(message: str, asked: float, has: float, free: float) -> None:
    told = read_memory(message)
    assert (told.asked, told.has, told.free) == (round(asked), round(has), round(free))


def test_the_factor_that_fits_follows_the_kind() -> None:
    told = MemoryTold(asked=400 * GIB, has=100 * GIB)
    assert told.fitting_factor("batch size") == 0.25
    assert told.fitting_factor("size") == 0.5, "the area goes with the square"
    assert MemoryTold(asked=GIB, has=100 * GIB).fitting_factor("batch size") is None


def test_a_jobs_latest_failure_is_read(ledger) -> None:
    workflow = {"1": {"class_type": "EmptyImage", "inputs": {"batch_size": 4096}}}
    ledger.presets.add("big", PresetContent(workflow_hash(workflow), workflow))
    _batch, (job_id,) = ledger.create_batch("big", [NewJob({})], requester="t")
    prompt = "p-1"
    ledger.submit_attempt(job_id, prompt, "http://127.0.0.1:8188", "hash")
    ledger.observe_queued(prompt, 1)
    ledger.observe_running(prompt)
    error = AttemptError(ErrorKind.oom, recorded_message(), "1", "EmptyImage")
    ledger.observe_failed(prompt, Reason.oom, error)
    told = memory_told(ledger, job_id)
    assert told.asked == 4398046511104
    assert told.has_local, "the helpers' server is 127.0.0.1"

"""A wildcard batch run on the simulator, queued again job by job: each new job sends the very
texts of the one it repeats (the server saves its picture under the same resolved name).

A story across modules (`batchline queue`, compose's wildcards, `run`, `again`, `show`), kept
in its own file rather than under one module's tests."""

from __future__ import annotations

from pathlib import Path

from core.batch.wildcards import expand_random
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli, run_until_idle


def _prefixes(cli: Cli, job_ids: list[str]) -> list[str]:
    """Each job's resolved prefix (the job succeeded)."""
    shown = [cli("show", job_id, "--json").json() for job_id in job_ids]
    assert [job["state"] for job in shown] == ["succeeded"] * len(job_ids)
    return [job["params"]["3.filename_prefix"] for job in shown]


def test_a_wildcard_batch_queued_again_sends_the_same_texts(
    cli: Cli, noise: str, sim_thread: SimulatorThread, outputs: Path, tmp_path: Path
) -> None:
    template = "{fox|owl|hare|lynx|wren}_{dawn|dusk}"
    queued = cli(
        "queue",
        "noise",
        "--count",
        "6",
        "--set",
        f"3.filename_prefix={template}",
        "--wildcards",
        "3.filename_prefix=random",
    )
    assert queued.code == 0, queued.err
    ids = queued.out.split()
    run_until_idle(cli, sim_thread)
    texts = _prefixes(cli, ids)
    assert texts == [expand_random(template, s, salt="3.filename_prefix") for s in range(6)]
    assert len(set(texts)) > 1
    again_ids = []
    for job_id in ids:
        result = cli("again", job_id)
        assert result.code == 0, result.err
        again_ids += result.out.split()
    run_until_idle(cli, sim_thread)
    assert _prefixes(cli, again_ids) == texts
    saved = tmp_path / "sim-out"  # the server saves each prompt's pictures under its id
    for first, second, text in zip(ids, again_ids, texts, strict=True):
        for job_id in (first, second):
            (attempt,) = cli("show", job_id, "--json").json()["attempts"]
            names = [p.name for p in saved.glob(f"batchline/*/{attempt['prompt_id']}/*.png")]
            assert names == [f"{text}_00001_.png"]

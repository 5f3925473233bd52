"""`batchline preset add|list|show|remove`."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tracemalloc
from pathlib import Path

import httpx
import pytest

from core.api import ApiConfig, serve_api
from core.batch import default_requester
from core.comfy.bodies import MAX_CATALOGUE_BYTES, MIB
from core.controller.backpressure import Limits
from core.ledger import Ledger, PresetContent, PresetOutcome
from core.presets import preset_from_api
from core.presets.storing import store_preset
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli
from tests.core.helpers import NOISE_WORKFLOW
from tests.core.hostile import GB, Behaviour, HostileServer, huge, trickle

DATA = Path(__file__).resolve().parents[1] / "data"


def test_add_creates_then_reports_identical_content(cli: Cli, noise_file: Path) -> None:
    first = cli("preset", "add", str(noise_file))
    assert first.code == 0
    assert first.out.startswith("created: preset 'noise'")
    again = cli("preset", "add", str(noise_file))
    assert again.code == 0
    assert again.out.strip() == "unchanged: identical content already stored as 'noise'"


def test_add_with_name_and_replace(cli: Cli, noise_file: Path, tmp_path: Path) -> None:
    assert cli("preset", "add", str(noise_file), "--name", "n").code == 0
    other = tmp_path / "other.json"
    changed = json.loads(json.dumps(NOISE_WORKFLOW))
    changed["2"]["inputs"]["strength"] = 0.9
    other.write_text(json.dumps(changed))
    refused = cli("preset", "add", str(other), "--name", "n")
    assert refused.code == 2
    assert "already exists" in refused.err
    assert len(refused.err.strip().splitlines()) == 1
    replaced = cli("preset", "add", str(other), "--name", "n", "--replace")
    assert replaced.code == 0
    assert replaced.out.startswith("replaced: preset 'n'")
    shown = cli("preset", "show", "n", "--json").json()
    assert shown["api_workflow"]["2"]["inputs"]["strength"] == 0.9


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"{not json", "not valid JSON"),
        (b'{"a": 1}', "neither an API-format nor an editor-format"),
    ],
)
def test_a_bad_file_is_one_line_exit_2_and_leaves_the_ledger_alone(
    cli: Cli, home: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    result = cli("preset", "add", str(bad))
    assert result.code == 2
    assert result.out == ""
    (line,) = result.err.strip().splitlines()
    assert line.startswith("batchline: bad.json:")
    assert message in line
    with Ledger(home) as ledger:
        assert ledger.presets.names() == []


def test_a_missing_file_is_exit_2(cli: Cli, tmp_path: Path) -> None:
    result = cli("preset", "add", str(tmp_path / "nope.json"))
    assert result.code == 2
    assert "cannot read the file" in result.err


def test_an_editor_workflow_says_which_catalogue_converted_it(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "editor.json"
    shutil.copy(DATA / "presets" / "editor_features.json", path)
    result = cli("preset", "add", str(path))
    assert result.code == 0
    assert "notice: converted with the bundled ComfyUI 0.3.64 node catalogue" in result.out


def test_add_uses_the_server_catalogue_when_it_answers(
    cli: Cli, tmp_path: Path, sim_thread: SimulatorThread
) -> None:
    cli.server = sim_thread.url
    path = tmp_path / "editor.json"
    shutil.copy(DATA / "presets" / "editor_features.json", path)
    result = cli("preset", "add", str(path))
    assert result.code == 0
    assert "bundled" not in result.out


def test_seed_input_is_stored_and_shown(cli: Cli, noise_file: Path) -> None:
    assert cli("preset", "add", str(noise_file), "--seed-input", "1.color").code == 0
    shown = cli("preset", "show", "noise", "--json").json()
    assert [s["input"] for s in shown["seed_inputs"]] == ["1.color"]
    bad = cli("preset", "add", str(noise_file), "--name", "x", "--seed-input", "9.seed")
    assert bad.code == 2


def test_list_and_show(cli: Cli, noise: str) -> None:
    listing = cli("preset", "list")
    me = f"{default_requester()} (local)"
    assert listing.out.startswith(f"noise\t3 nodes\tstored by {me}\tchanged ")
    assert listing.out.rstrip().endswith(f" by {me}")
    (entry,) = cli("preset", "list", "--json").json()
    assert entry["name"] == "noise"
    assert entry["nodes"] == 3
    assert (
        entry["stored_by"] == entry["changed_by"] == {"name": default_requester(), "via": "local"}
    )
    text = cli("preset", "show", "noise").out
    assert f" by {me}, changed " in text
    assert "seed inputs: 2.seed" in text
    assert "2.strength" in text
    assert "seed inputs: 2.seed (ImageAddNoise · seed)" in text, "the id typed, the name read"
    assert "1.color [EmptyImage · color] INT = 8421504 (#808080)" in text, "a colour, as shown"
    shown = cli("preset", "show", "noise", "--json").json()
    assert shown["name"] == "noise"
    assert shown["api_workflow"] == NOISE_WORKFLOW
    assert shown["seed_inputs"][0]["input"] == "2.seed"
    params = {p["input"]: p for p in shown["parameters"]}
    assert params["2.seed"]["is_seed"] is True
    assert params["1.width"]["type"] == "INT"
    assert params["1.width"]["value"] == 64
    assert params["1.color"]["colour"] is True
    assert params["1.color"]["name"] == "EmptyImage · color"


def test_who_stored_and_who_changed_a_preset_are_recorded_and_shown(
    cli: Cli, home: Path, noise_file: Path
) -> None:
    """A requester's preset replaced by the artist, locally: it stays the requester's, and the
    artist is named as the last to change it."""
    with Ledger(home) as ledger:
        noisier = {**NOISE_WORKFLOW["2"]["inputs"], "strength": 0.9}
        other = {**NOISE_WORKFLOW, "2": {**NOISE_WORKFLOW["2"], "inputs": noisier}}
        stored = store_preset(
            ledger, "bobs", preset_from_api(other, Path("b.json")), requester="bob"
        )
        assert stored.outcome is PresetOutcome.created
    me = f"{default_requester()} (local)"
    assert cli("preset", "show", "bobs").out.splitlines()[1].endswith(" by bob (API)")
    replaced = cli("preset", "add", str(noise_file), "--name", "bobs", "--replace")
    assert replaced.code == 0, replaced.err
    (line,) = cli("preset", "list").out.splitlines()
    assert line.startswith("bobs\t3 nodes\tstored by bob (API)\tchanged ")
    assert line.endswith(f" by {me}")
    shown = cli("preset", "show", "bobs").out.splitlines()[1]
    assert shown.startswith("stored ")
    assert " by bob (API), changed " in shown
    assert shown.endswith(f" by {me}")
    (entry,) = cli("preset", "list", "--json").json()
    assert (entry["stored_by"]["via"], entry["changed_by"]["via"]) == ("api", "local")


def test_show_and_remove_unknown_names_are_exit_2(cli: Cli) -> None:
    for verb in ("show", "remove"):
        result = cli("preset", verb, "ghost")
        assert result.code == 2
        assert result.err.strip() == "batchline: no preset named 'ghost'"


def test_remove(cli: Cli, noise: str) -> None:
    result = cli("preset", "remove", "noise")
    assert result.code == 0
    assert cli("preset", "list", "--json").json() == []


def test_list_when_empty(cli: Cli) -> None:
    assert "no presets" in cli("preset", "list").out


CRAFTED = DATA / "crafted-presets"


@pytest.mark.timeout(30)  # unbounded, this expansion ran for minutes and grew past 4 GB
@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ("subgraph_doubling.json", "subgraphs or group nodes expand to more than 10,000 nodes"),
        ("subgraph_doubling.png", "subgraphs or group nodes expand to more than 10,000 nodes"),
        ("nan_input.json", "node 2 (ImageAddNoise), input 'strength': nan is not a finite number"),
        (
            "infinite_input.json",
            "node 2 (ImageAddNoise), input 'strength': inf is not a finite number",
        ),
        (
            "lone_surrogate.json",
            "node 3 (SaveImage), input 'filename_prefix': the text holds a lone surrogate "
            "(\\ud800 at character 6)",
        ),
        (
            "link_cycle.json",
            "links form a cycle: node 1 (EmptyImage) -> node 2 (ImageAddNoise) "
            "-> node 3 (SaveImage) -> node 1",
        ),
    ],
)
def test_a_crafted_file_is_refused_in_one_line_and_nothing_is_stored(
    cli: Cli, home: Path, fixture: str, message: str
) -> None:
    result = cli("preset", "add", str(CRAFTED / fixture))
    assert result.code == 2
    assert result.out == ""
    (line,) = result.err.strip().splitlines()
    assert line.startswith(f"batchline: {fixture}: ")
    assert message in line
    with Ledger(home) as ledger:
        assert ledger.presets.names() == []


def test_a_name_that_is_not_utf8_is_refused(cli: Cli, home: Path, tmp_path: Path) -> None:
    odd = tmp_path / os.fsdecode(b"caf\xe9.json")  # a Latin-1 file name
    odd.write_text(json.dumps(NOISE_WORKFLOW))
    for args in (["--name", os.fsdecode(b"a\xffb")], []):
        result = cli("preset", "add", str(odd), *args)
        assert result.code == 2
        (line,) = result.err.strip().splitlines()
        assert "is not valid UTF-8 text; choose another with --name" in line
    with Ledger(home) as ledger:
        assert ledger.presets.names() == []
    stored = cli("preset", "add", str(odd), "--name", "cafe")
    assert stored.code == 0
    shown = cli("preset", "show", "cafe", "--json").json()
    assert shown["source"].endswith("caf\\udce9.json")
    for verb in ("show", "remove"):
        result = cli("preset", verb, os.fsdecode(b"caf\xe9"))
        assert result.code == 2
        assert result.err == "batchline: the preset name 'caf\\udce9' is not valid UTF-8 text\n"


def test_a_preset_stored_before_the_checks_is_refused_by_name(cli: Cli, home: Path) -> None:
    api = json.loads(json.dumps(NOISE_WORKFLOW))
    api["2"]["inputs"]["strength"] = float("nan")
    content = PresetContent(workflow_hash="0" * 64, api_workflow=api, editor_workflow=None)
    with Ledger(home) as ledger:
        ledger.presets.add("old", content)
    for args in (["queue", "old", "--count", "1"], ["preset", "show", "old"]):
        result = cli(*args)
        assert result.code == 2
        assert result.err == (
            "batchline: preset 'old': node 2 (ImageAddNoise), input 'strength': "
            "nan is not a finite number\n"
        )
    with Ledger(home) as ledger:
        assert ledger.count_by_state() == {}


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [
        (trickle(0.1), "GET /object_info: no complete answer within 3 s (the server is stuck)"),
        (huge(GB), "GET /object_info: answer exceeds the limit of 64 MiB, not read further"),
    ],
    ids=["trickle", "1 GB"],
)
@pytest.mark.timeout(60)  # the trickle never ends: without its deadline the command would not
def test_add_gives_up_on_a_stuck_catalogue_in_time_and_memory(
    cli: Cli,
    tmp_path: Path,
    hostile_thread: HostileServer,
    behaviour: Behaviour,
    error: str,
) -> None:
    """In time: the error names the 3 s deadline that ended the endless trickle; in memory:
    counted, the peak and what the server sent stay about the catalogue's limit."""
    hostile_thread.behaviours["GET /object_info"] = behaviour
    cli.server = hostile_thread.url
    path = tmp_path / "editor.json"
    shutil.copy(DATA / "presets" / "editor_features.json", path)
    tracemalloc.start()
    try:
        result = cli("preset", "add", str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * MAX_CATALOGUE_BYTES
    assert hostile_thread.sent["GET /object_info"] < MAX_CATALOGUE_BYTES + 16 * MIB
    assert result.code == 0
    assert result.err == f"notice: not using the catalogue of ComfyUI at {cli.server}: {error}\n"
    assert "notice: converted with the bundled ComfyUI 0.3.64 node catalogue" in result.out


def test_a_tokens_replace_of_the_artists_preset_is_refused_and_queue_runs_the_artists(
    cli: Cli, home: Path, noise_file: Path
) -> None:
    """The issue's case: another token's `POST /v1/presets?name=quick&replace=true` on the
    artist's preset is 403 naming the owner; the artist's next `batchline queue quick` still
    queues the artist's workflow."""
    assert cli("preset", "add", str(noise_file), "--name", "quick").code == 0
    token = cli("tokens", "create", "bob").out.strip()
    noisier = {**NOISE_WORKFLOW["2"]["inputs"], "strength": 0.9}
    bobs = {**NOISE_WORKFLOW, "2": {**NOISE_WORKFLOW["2"], "inputs": noisier}}

    async def replace() -> httpx.Response:
        with Ledger(home) as ledger:
            async with serve_api(ledger, ApiConfig("127.0.0.1", 0, Limits(10, 10))) as url:
                headers = {"Authorization": f"Bearer {token}"}
                async with httpx.AsyncClient(base_url=url, headers=headers) as bob:
                    return await bob.post(
                        "/v1/presets?name=quick&replace=true", content=json.dumps(bobs)
                    )

    answer = asyncio.run(replace())
    assert answer.status_code == 403
    assert answer.json() == {
        "error": "forbidden",
        "message": f"preset 'quick' is not yours: it is the artist's ({default_requester()}, "
        "changed only on that computer); store yours under another name",
    }
    queued = cli("queue", "quick")
    assert queued.code == 0, queued.err
    with Ledger(home) as ledger:
        (batch,) = ledger.batches()
        assert ledger.workflow(batch.workflow_hash) == NOISE_WORKFLOW
        assert ledger.presets.get("quick").changed_by.via == "local"


def test_show_names_the_sdxl_base_and_refiner_inputs_beside_their_ids(
    cli: Cli, tmp_path: Path
) -> None:
    """The CLI's door: ``preset show`` and ``show JOB`` give each input's id (what options
    take) and beside it the name the window shows."""
    from tests.core.presets.test_input_names import (
        BASE_PROMPT,
        BASE_SEED,
        REFINER_PROMPT,
        SDXL,
    )

    path = tmp_path / "sdxl.json"
    path.write_text(json.dumps(json.loads(SDXL.read_text("utf-8"))["workflow"]), "utf-8")
    assert cli("preset", "add", str(path)).code == 0
    text = cli("preset", "show", "sdxl").out
    assert f"10.noise_seed ({BASE_SEED})" in text
    assert f"6.text [{BASE_PROMPT}] STRING" in text
    assert f"15.text [{REFINER_PROMPT}] STRING" in text
    shown = cli("preset", "show", "sdxl", "--json").json()
    names = {p["input"]: p["name"] for p in shown["parameters"]}
    assert (names["6.text"], names["15.text"]) == (BASE_PROMPT, REFINER_PROMPT)
    (job,) = cli("queue", "sdxl", "--seeds", "7", "--set", "6.text=a fox").out.split()
    story = cli("show", job).out.splitlines()
    assert any(line.split() == ["6.text", *BASE_PROMPT.split()] for line in story), story
    assert any(line.split() == ["10.noise_seed", *BASE_SEED.split()] for line in story)

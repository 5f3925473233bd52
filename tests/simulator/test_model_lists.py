"""The model files a simulated server lists (object_info, /models, validation), their change at
run time, and the load a checkpoint switch costs."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from cli.main import build_parser
from cli.simulate_cmd import config_from_args
from core.placement.model_inputs import KNOWN_INPUTS
from simulator import Simulator, SimulatorConfig
from simulator.config import MODEL_LOAD_SHARE
from simulator.model_lists import FOLDER_NAMES
from simulator.thread import SimulatorThread
from tests.core.conftest import MakeSimulator
from tests.simulator.sim_helpers import checkpoint, get, post, submit, wait_history

A, B = "tiny-a.safetensors", "tiny-b.safetensors"


def with_checkpoint(name: str, seed: int = 1) -> dict[str, Any]:
    prompt = checkpoint(seed=seed, steps=2)
    prompt["4"]["inputs"]["ckpt_name"] = name
    return prompt


def choices(spec: list[Any]) -> list[Any]:
    return list(spec[0]) if isinstance(spec[0], list) else list(spec[1]["options"])


@pytest.mark.asyncio
async def test_object_info_lists_exactly_the_configured_files_for_every_input_of_the_folder(
    make_simulator: MakeSimulator,
) -> None:
    sim = await make_simulator(models={"checkpoints": [B, A], "upscale_models": ["x4.pth"]})
    async with aiohttp.ClientSession() as session:
        _, info = await get(session, sim.url + "/object_info")
    listed = {
        str(key): choices(info[key.class_type]["input"]["required"][key.input])
        for key, folder in KNOWN_INPUTS.items()
        if folder in ("checkpoints", "upscale_models") and key.class_type in info
    }
    assert listed["CheckpointLoaderSimple.ckpt_name"] == [A, B]  # sorted, as ComfyUI lists them
    assert listed["UpscaleModelLoader.model_name"] == ["x4.pth"]  # a COMBO-typed input
    assert len(listed) >= 5
    assert all(files == [A, B] for key, files in listed.items() if "ckpt_name" in key)
    loras = choices(info["LoraLoader"]["input"]["required"]["lora_name"])
    assert "add_detail.safetensors" in loras  # a folder not named keeps the bundled files


@pytest.mark.asyncio
async def test_vae_lists_keep_the_choices_that_are_no_file(make_simulator: MakeSimulator) -> None:
    sim = await make_simulator(models={"vae": ["my_vae.safetensors"]})
    vaes = choices(sim.state.object_info["VAELoader"]["input"]["required"]["vae_name"])
    assert vaes == ["my_vae.safetensors", "pixel_space"]


@pytest.mark.asyncio
async def test_models_routes_answer_as_comfyui_does(make_simulator: MakeSimulator) -> None:
    sim = await make_simulator(models={"checkpoints": [A]})
    async with aiohttp.ClientSession() as session:
        assert await get(session, sim.url + "/models") == (200, list(FOLDER_NAMES))
        assert await get(session, sim.url + "/api/models/checkpoints") == (200, [A])
        status, loras = await get(session, sim.url + "/models/loras")
        assert status == 200
        assert "add_detail.safetensors" in loras
        assert (await get(session, sim.url + "/models/embeddings")) == (200, [])
        assert (await get(session, sim.url + "/models/nope"))[0] == 404


@pytest.mark.asyncio
async def test_a_file_not_listed_is_refused_as_value_not_in_list(
    make_simulator: MakeSimulator,
) -> None:
    sim = await make_simulator(models={"checkpoints": [A]})
    async with aiohttp.ClientSession() as session:
        status, body = await post(session, sim.url + "/prompt", {"prompt": with_checkpoint(B)})
    assert status == 400
    assert body["error"]["type"] == "prompt_outputs_failed_validation"
    node = body["node_errors"]["4"]
    assert node["class_type"] == "CheckpointLoaderSimple"
    (reason,) = node["errors"]
    assert reason["type"] == "value_not_in_list"
    assert reason["details"] == f"ckpt_name: '{B}' not in ['{A}']"
    assert reason["extra_info"]["input_name"] == "ckpt_name"
    assert reason["extra_info"]["received_value"] == B


@pytest.mark.asyncio
async def test_the_lists_change_at_run_time_through_the_controls(
    make_simulator: MakeSimulator,
) -> None:
    sim = await make_simulator(models={"checkpoints": [A]})
    async with aiohttp.ClientSession() as session:
        status, _ = await post(session, sim.url + "/prompt", {"prompt": with_checkpoint(B)})
        assert status == 400
        installed = {"models": {"checkpoints": [A, B]}}
        status, stats = await post(session, sim.url + "/_sim/models", installed)
        assert status == 200
        assert stats["models"] == {"checkpoints": [A, B]}
        await wait_history(session, sim, await submit(session, sim, with_checkpoint(B)))
        assert (await get(session, sim.url + "/models/checkpoints")) == (200, [A, B])
        status, answer = await post(session, sim.url + "/_sim/models", {"models": {"gpus": []}})
        assert status == 400
        assert "gpus" in answer["error"]
        await post(session, sim.url + "/_sim/models", {"models": None})
        _, bundled = await get(session, sim.url + "/models/checkpoints")
    assert B not in bundled
    assert "v1-5-pruned-emaonly.safetensors" in bundled


@pytest.mark.asyncio
async def test_a_restart_comes_back_with_the_lists_set_before_it(
    make_simulator: MakeSimulator,
) -> None:
    sim = await make_simulator()
    sim.set_models({"checkpoints": [B]})
    await sim.restart()
    async with aiohttp.ClientSession() as session:
        assert (await get(session, sim.url + "/models/checkpoints")) == (200, [B])


async def run_in_order(sim: Simulator, names: list[str]) -> list[dict[str, Any]]:
    entries = []
    async with aiohttp.ClientSession() as session:
        for seed, name in enumerate(names):
            prompt_id = await submit(session, sim, with_checkpoint(name, seed))
            entries.append(await wait_history(session, sim, prompt_id))
    return entries


def cached_nodes(entry: dict[str, Any]) -> list[str]:
    return next(d["nodes"] for e, d in entry["status"]["messages"] if e == "execution_cached")


@pytest.mark.asyncio
async def test_a_switch_loads_and_re_encodes_the_same_checkpoint_is_cached(
    make_simulator: MakeSimulator,
) -> None:
    sim = await make_simulator(models={"checkpoints": [A, B]}, model_load_s=0.01)
    entries = await run_in_order(sim, [A, A, B, A])
    assert sim.stats()["model_loads"] == {A: 2, B: 1}
    assert sim.stats()["loaded_model"] == A
    assert {"4", "6", "7"} <= set(cached_nodes(entries[1]))  # same checkpoint: loader, prompts
    assert not {"4", "6", "7"} & set(cached_nodes(entries[2]))  # a switch: load and re-encode
    assert not {"4", "6", "7"} & set(cached_nodes(entries[3]))


@pytest.mark.asyncio
async def test_alternating_checkpoints_loads_once_per_job_grouped_once_per_checkpoint(
    make_simulator: MakeSimulator,
) -> None:
    alternating = await make_simulator(models={"checkpoints": [A, B]}, model_load_s=0.01)
    grouped = await make_simulator(models={"checkpoints": [A, B]}, model_load_s=0.01)
    await run_in_order(alternating, [A, B, A, B])
    await run_in_order(grouped, [A, A, B, B])
    assert sum(alternating.stats()["model_loads"].values()) == 4
    assert sum(grouped.stats()["model_loads"].values()) == 2


@pytest.mark.asyncio
async def test_a_load_takes_its_time(make_simulator: MakeSimulator) -> None:
    sim = await make_simulator(models={"checkpoints": [A, B]}, model_load_s=0.3)
    entries = await run_in_order(sim, [A, B])
    times = [sim.state.times[e["prompt"][1]] for e in entries]
    assert all(t.end is not None and t.start is not None for t in times)
    assert all((t.end or 0) - (t.start or 0) >= 300 for t in times)


@pytest.mark.asyncio
async def test_a_restart_forgets_the_loaded_model(make_simulator: MakeSimulator) -> None:
    sim = await make_simulator(models={"checkpoints": [A]}, model_load_s=0.0)
    await run_in_order(sim, [A])
    await sim.restart()
    assert sim.stats()["loaded_model"] is None
    await run_in_order(sim, [A])
    assert sim.stats()["model_loads"] == {A: 2}


def test_the_default_load_is_a_share_of_the_job() -> None:
    assert SimulatorConfig(job_seconds=2.0).load_seconds == MODEL_LOAD_SHARE * 2.0
    assert SimulatorConfig(job_seconds=2.0, model_load_s=0.0).load_seconds == 0.0


def test_cli_models_and_model_load_become_the_config() -> None:
    args = build_parser().parse_args([
        "simulate", "--models", f"checkpoints={A},{B}", "--models", "loras=",
        "--models", f"checkpoints={A}", "--model-load", "1.5",
    ])  # fmt: skip
    config = config_from_args(args)
    assert config.models == {"checkpoints": [A, B, A], "loras": []}
    assert config.model_load_s == 1.5
    assert config_from_args(build_parser().parse_args(["simulate"])).models is None


def test_cli_refuses_an_unknown_folder(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["simulate", "--models", "gpus=a.safetensors"])
    assert "FOLDER=FILE,FILE" in capsys.readouterr().err


def test_a_simulator_in_a_thread_takes_its_lists_too(tmp_path: Path) -> None:
    thread = SimulatorThread(SimulatorConfig(job_seconds=0.01, output_dir=tmp_path))
    url = thread.start()
    try:
        thread.set_models({"checkpoints": [B]})
        with urllib.request.urlopen(url + "/models/checkpoints", timeout=10) as answer:
            assert json.loads(answer.read()) == [B]
        assert thread.stats()["models"] == {"checkpoints": [B]}
    finally:
        thread.stop()

"""`batchline simulate`: serve a simulated ComfyUI (for demos, manual tests and fault drills)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

from cli.arg_types import COUNT, PORT, RATE, SECONDS, number, whole
from core.errors import InputError
from simulator import SimulatorConfig
from simulator.config import (
    BASELINE_VERSION,
    DEFAULT_MAX_UPLOAD_SIZE,
    MODEL_LOAD_SHARE,
    FaultSettings,
)
from simulator.model_lists import FOLDER_NAMES
from simulator.simulator import Simulator, check_loopback

MIB = 1024 * 1024


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="run a simulated ComfyUI server (not a real ComfyUI)",
        description="Serve a faithful ComfyUI stand-in on loopback until Ctrl-C.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    parser.add_argument("--port", type=PORT, default=8188, help="port (default 8188)")
    parser.add_argument(
        "--version",
        dest="comfy_version",
        default=BASELINE_VERSION,
        help=f"ComfyUI version to present (default {BASELINE_VERSION}; 0.4+ adds /api/jobs)",
    )
    parser.add_argument("--token", help="require 'Authorization: Bearer TOKEN'")
    parser.add_argument("--job-seconds", type=SECONDS, default=0.5, help="time per simulated job")
    parser.add_argument(
        "--cpu-time-scale",
        type=number(0.0),
        default=1.0,
        help="scale of emulated CPU cost of real image nodes (0 = none)",
    )
    parser.add_argument("--output-dir", type=Path, help="output folder (default: a cache folder)")
    parser.add_argument("--seed", type=whole(), default=0, help="seed of the fault dice")
    parser.add_argument(
        "--preview-method",
        default="none",
        metavar="METHOD",
        help="as ComfyUI's: 'none' (the default) sends no previews; any other (auto, "
        "latent2rgb, taesd) sends a small preview after each sampler step",
    )
    parser.add_argument(
        "--models",
        type=model_list,
        action="append",
        default=[],
        metavar="FOLDER=FILE,FILE",
        help="the files of one model folder (repeatable; e.g. checkpoints=a.safetensors,"
        "b.safetensors); a folder not named keeps the built-in files",
    )
    parser.add_argument(
        "--model-load",
        type=SECONDS,
        metavar="SECONDS",
        help="what loading a checkpoint costs (default: "
        f"{MODEL_LOAD_SHARE:g} of --job-seconds, as measured on a real ComfyUI)",
    )
    parser.add_argument(
        "--max-upload-size",
        type=number(0.0),
        default=DEFAULT_MAX_UPLOAD_SIZE / MIB,
        metavar="MB",
        help="as ComfyUI's: the largest request body in MB (MiB) a picture upload may have; "
        f"a bigger one is answered 413 (default {DEFAULT_MAX_UPLOAD_SIZE // MIB})",
    )
    _fault_options(parser)
    parser.set_defaults(func=run)


def model_list(text: str) -> tuple[str, list[str]]:
    """``FOLDER=FILE,FILE`` as (folder, files); an empty list after ``=`` lists no file."""
    folder, equals, files = text.partition("=")
    if not equals or folder not in FOLDER_NAMES:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not FOLDER=FILE,FILE with FOLDER one of {', '.join(FOLDER_NAMES)}"
        )
    return folder, [name.strip() for name in files.split(",") if name.strip()]


def _models(pairs: list[tuple[str, list[str]]]) -> dict[str, list[str]] | None:
    models: dict[str, list[str]] = {}
    for folder, files in pairs:
        models.setdefault(folder, []).extend(files)
    return models or None


def _fault_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("faults")
    group.add_argument(
        "--fail-oom",
        type=COUNT,
        default=0,
        metavar="N",
        help="the next N jobs fail with out-of-memory",
    )
    group.add_argument(
        "--fail-error",
        type=COUNT,
        default=0,
        metavar="N",
        help="the next N jobs fail with a RuntimeError",
    )
    group.add_argument(
        "--hang", type=COUNT, default=0, metavar="N", help="the next N jobs hang until a restart"
    )
    group.add_argument(
        "--error-rate",
        type=RATE,
        default=0.0,
        metavar="R",
        help="share of requests answered with HTTP 500",
    )
    group.add_argument(
        "--drop-rate",
        type=RATE,
        default=0.0,
        metavar="R",
        help="share of requests whose connection is dropped",
    )
    group.add_argument(
        "--drop-after-queue-rate",
        type=RATE,
        default=0.0,
        metavar="R",
        help="share of POST /prompt queued but answered by a dropped connection",
    )
    group.add_argument(
        "--late-queue-rate",
        type=RATE,
        default=0.0,
        metavar="R",
        help="share of POST /prompt queued only after --late seconds (then answered)",
    )
    group.add_argument(
        "--late-answer-rate",
        type=RATE,
        default=0.0,
        metavar="R",
        help="share of POST /prompt queued at once but answered after --late seconds",
    )
    group.add_argument(
        "--late", type=SECONDS, default=5.0, metavar="S", help="how late a late prompt is (5 s)"
    )
    for name, what in (
        ("garbage", "answered 200 with a body that is not JSON"),
        ("trickle", "answered one byte a second (at most a minute)"),
        ("huge", "answered with 20 MiB of blanks before the real body"),
    ):
        group.add_argument(
            f"--{name}-rate",
            type=RATE,
            default=0.0,
            metavar="R",
            help=f"share of answers (not /view) {what}",
        )
    group.add_argument(
        "--delay", type=SECONDS, default=0.0, metavar="S", help="seconds to delay every answer"
    )
    group.add_argument(
        "--fault-route",
        action="append",
        default=[],
        metavar="'METHOD /path'",
        help="limit HTTP faults to this route (repeatable)",
    )


def config_from_args(args: argparse.Namespace) -> SimulatorConfig:
    faults = FaultSettings(
        fail_oom=args.fail_oom,
        fail_error=args.fail_error,
        hang_next=args.hang,
        error_rate=args.error_rate,
        drop_rate=args.drop_rate,
        drop_after_queue_rate=args.drop_after_queue_rate,
        late_queue_rate=args.late_queue_rate,
        late_answer_rate=args.late_answer_rate,
        late_seconds=args.late,
        garbage_rate=args.garbage_rate,
        trickle_rate=args.trickle_rate,
        huge_rate=args.huge_rate,
        delay_seconds=args.delay,
        routes=list(args.fault_route),
    )
    output = args.output_dir or Path(user_cache_dir("batchline")) / "simulator-output"
    return SimulatorConfig(
        version=args.comfy_version,
        token=args.token,
        job_seconds=args.job_seconds,
        cpu_time_scale=args.cpu_time_scale,
        output_dir=output,
        seed=args.seed,
        faults=faults,
        preview_method=args.preview_method,
        models=_models(args.models),
        model_load_s=args.model_load,
        max_upload_size=round(args.max_upload_size * MIB),
    )


def run(args: argparse.Namespace) -> int:
    try:
        check_loopback(args.host)
    except ValueError as exc:
        raise InputError(f"--host: {exc}") from None
    config = config_from_args(args)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(config, args.host, args.port))
    return 0


async def _serve(config: SimulatorConfig, host: str, port: int) -> None:
    stopped = asyncio.Event()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # no signal handlers on Windows
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopped.set)
    simulator = Simulator(config)
    url = await simulator.start(host, port)
    auth = " (token required)" if config.token else ""
    print(
        f"Batchline simulated ComfyUI {config.version} — not a real ComfyUI; "
        f"listening on {url}{auth}\nOutputs in {simulator.output_dir}. Press Ctrl-C to stop.",
        flush=True,
    )
    try:
        await stopped.wait()
    finally:
        await simulator.stop()

"""Settings of a simulated ComfyUI server: version, auth, timing, models, output folder and
faults."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

BASELINE_VERSION = "0.3.64"
# POST /api/jobs/{id}/cancel and /api/jobs/cancel: ComfyUI PR #14493, merged 2026-06-16. 0.15.0
# lacks them, 0.38.1 has them; 0.26.0 (2026-06-23) is the first release after the merge.
JOBS_CANCEL_VERSION = (0, 26, 0)
DEFAULT_STEPS = 20
# A checkpoint switch's cost (its load and the prompts' re-encoding) as a share of a job, when
# no load time is set. Measured on the real ComfyUI with its tiny checkpoints (128x128, 6
# steps; BENCHMARKS.md): 8 jobs alternating two checkpoints against the same 8 grouped gave a
# switch of 5.2 s beside a job of 5.1 s on the shared machine (the quiet machine: 0.8).
MODEL_LOAD_SHARE = 1.0
# ComfyUI's --max-upload-size default: 100 MB (its MB are MiB), for a whole request's body.
DEFAULT_MAX_UPLOAD_SIZE = 100 * 1024 * 1024


@dataclass
class FaultSettings:
    """What the simulator should get wrong, settable at start and at run time.

    Rates are shares of requests in [0, 1], drawn from one seeded ``random.Random`` so runs are
    reproducible. ``routes`` limits the HTTP faults to requests whose ``"METHOD /path"`` (with
    any ``/api`` prefix removed) is listed, e.g. ``["POST /prompt"]``; empty means every route.

    A share of ``POST /prompt`` can be *late*, as a busy real server is: ``late_queue_rate``
    reads and validates the prompt, waits ``late_seconds``, then queues it and answers (a
    client that gave up meanwhile finds it in the queue later); ``late_answer_rate`` queues it
    at once and answers only after ``late_seconds``.

    A share of answers can be *hostile* (after the handler did its work; never ``/view``):
    ``garbage_rate`` answers 200 with a body that is not JSON, ``trickle_rate`` sends the real
    body one byte every ``trickle_seconds`` (at most a minute), ``huge_rate`` puts 20 MiB of
    blanks in front of it.
    """

    fail_oom: int = 0
    fail_error: int = 0
    error_rate: float = 0.0
    drop_rate: float = 0.0
    drop_after_queue_rate: float = 0.0
    late_queue_rate: float = 0.0
    late_answer_rate: float = 0.0
    late_seconds: float = 5.0
    garbage_rate: float = 0.0
    trickle_rate: float = 0.0
    trickle_seconds: float = 1.0
    huge_rate: float = 0.0
    delay_seconds: float = 0.0
    routes: list[str] = field(default_factory=list)
    hang_next: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "fail_oom": self.fail_oom,
            "fail_error": self.fail_error,
            "error_rate": self.error_rate,
            "drop_rate": self.drop_rate,
            "drop_after_queue_rate": self.drop_after_queue_rate,
            "late_queue_rate": self.late_queue_rate,
            "late_answer_rate": self.late_answer_rate,
            "late_seconds": self.late_seconds,
            "garbage_rate": self.garbage_rate,
            "trickle_rate": self.trickle_rate,
            "trickle_seconds": self.trickle_seconds,
            "huge_rate": self.huge_rate,
            "delay_seconds": self.delay_seconds,
            "routes": list(self.routes),
            "hang_next": self.hang_next,
        }


@dataclass
class SimulatorConfig:
    """How a `Simulator` presents itself and behaves.

    ``job_seconds`` is the time of one simulated job whose sampler runs ``DEFAULT_STEPS`` steps
    (a sampler with more steps takes proportionally longer; a job without a sampler spreads
    ``job_seconds`` over its nodes). ``cpu_time_scale`` scales the emulated CPU cost of real
    image nodes such as ImageBlur (1.0 is roughly a desktop CPU running ComfyUI; 0 disables it).
    ``ram_bytes`` is the memory a simulated allocation may use before it fails like ComfyUI on
    CPU. ``output_dir`` defaults to a fresh temporary folder. ``preview_method`` other than
    "none" sends a preview after each sampler step.

    ``models`` maps a model folder (ComfyUI's name: "checkpoints", "loras", ...) to the files
    the server lists in it; a folder not named keeps the bundled catalogue's files, None keeps
    them all. ``model_load_s`` is what loading a main model (a checkpoint or diffusion model the
    node cache does not hold) costs; None makes it ``MODEL_LOAD_SHARE`` of ``job_seconds``.

    ``max_upload_size`` is the largest request body in bytes (ComfyUI's ``--max-upload-size``,
    which it gives in MB): a bigger upload is answered 413. ``keep_input`` keeps the input
    folder (uploaded pictures) across a simulated restart, as a real restart does; False
    empties it, as a new server's is.
    """

    version: str = BASELINE_VERSION
    token: str | None = None
    job_seconds: float = 0.5
    cpu_time_scale: float = 1.0
    ram_bytes: int = 25_276_502_016
    output_dir: Path | None = None
    seed: int = 0
    faults: FaultSettings = field(default_factory=FaultSettings)
    # As ComfyUI's --preview-method: "none" (its default) sends no previews; any other value
    # sends a small JPEG after each sampler step (binary frames, type 4 to clients that asked
    # for preview metadata, type 1 to others).
    preview_method: str = "none"
    models: Mapping[str, Sequence[str]] | None = None
    model_load_s: float | None = None
    max_upload_size: int = DEFAULT_MAX_UPLOAD_SIZE
    keep_input: bool = True

    @property
    def has_jobs_api(self) -> bool:
        """Whether this version serves ``/api/jobs`` (ComfyUI 0.4 and later)."""
        return version_tuple(self.version) >= (0, 4, 0)

    @property
    def has_jobs_cancel(self) -> bool:
        """Whether this version serves the jobs API's cancel routes (see JOBS_CANCEL_VERSION)."""
        return version_tuple(self.version) >= JOBS_CANCEL_VERSION

    @property
    def load_seconds(self) -> float:
        """The time one main model's load takes (see ``model_load_s``)."""
        if self.model_load_s is None:
            return MODEL_LOAD_SHARE * self.job_seconds
        return self.model_load_s

    def resolved_output_dir(self) -> Path:
        if self.output_dir is None:
            self.output_dir = Path(tempfile.mkdtemp(prefix="batchline-sim-"))
        return self.output_dir


def version_tuple(version: str) -> tuple[int, ...]:
    """``"0.3.64"`` → ``(0, 3, 64)``; non-numeric parts count as 0."""
    return tuple(int(part) if part.isdigit() else 0 for part in version.split("."))

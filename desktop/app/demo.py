"""The embedded demo: the built-in simulator on a free port, with its own ledger and presets.

No Qt here: the demo's background controller (`batchline serve --demo`) runs it too.
"""

from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path

from core.ledger import Ledger
from core.ledger.settings import Settings
from core.presets import load_preset
from core.presets.storing import copy_preset, free_name
from desktop.presets.preset_files import add_preset_file
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread

COMFY_PORT = 8188
DEMO_FOLDER = "demo"
SAMPLE_PRESETS = Path(__file__).resolve().parents[2] / "resources" / "presets"
# The model-free sample has no seed input: vary its canvas colour instead.
SAMPLE_SEED_INPUTS = {"Soft gradient (model-free)": ["1.color"]}
SEEDED_KEY = "demo_presets_loaded"


def free_port(host: str = "127.0.0.1") -> int:
    """A free loopback port other than ComfyUI's 8188."""
    while True:
        with socket.socket() as sock:
            sock.bind((host, 0))
            port: int = sock.getsockname()[1]
        if port != COMFY_PORT:
            return port


def start_simulator(folder: Path, job_seconds: float = 4.0) -> SimulatorThread:
    """Start the simulator in its own thread, writing outputs under ``folder``; it sends
    previews of the sampler's steps."""
    output = folder / "simulator-output"
    # Previews on, as an artist's ComfyUI started with --preview-method auto sends them.
    config = SimulatorConfig(job_seconds=job_seconds, output_dir=output, preview_method="auto")
    thread = SimulatorThread(config)
    thread.start(port=free_port())
    return thread


def demo_ledger(data_dir: Path) -> Ledger:
    """The demo's own ledger (beside the real one, never mixed with it), with the samples."""
    ledger = Ledger(data_dir / DEMO_FOLDER)
    load_sample_presets(ledger)
    return ledger


def demo_settings(ledger: Ledger, simulator_url: str) -> Settings:
    """The demo ledger's settings, on the simulator; its pictures stay in the demo folder."""
    settings = Settings.load(ledger)
    output = settings.output_dir or ledger.folder / "outputs"
    return replace(settings, server=simulator_url, output_dir=output)


def load_sample_presets(ledger: Ledger) -> list[str]:
    """Put the sample presets into a demo ledger, once (the artist may delete them later)."""
    if ledger.settings.get(SEEDED_KEY):
        return []
    names = []
    for path in sorted(SAMPLE_PRESETS.glob("*.json")):
        result = add_preset_file(ledger, path, SAMPLE_SEED_INPUTS.get(path.stem))
        if result.name:
            names.append(result.name)
    ledger.settings.set(SEEDED_KEY, True)
    return names


def made_in_demo(demo: Ledger, real: Ledger) -> list[str]:
    """The demo's presets worth keeping: neither a sample as shipped nor a workflow the real
    ledger already has; sorted by name, whatever its case."""
    samples = {load_preset(path).content_hash for path in SAMPLE_PRESETS.glob("*.json")}
    known = samples | {record.workflow_hash for record in real.presets.all()}
    names = [record.name for record in demo.presets.all() if record.workflow_hash not in known]
    return sorted(names, key=str.casefold)


def copy_presets(demo: Ledger, real: Ledger, names: list[str]) -> list[str]:
    """Store the demo's presets `names` (with their composer state) in the real ledger; a name
    taken there gets a number. Returns the names they were stored under."""
    stored = []
    for name in names:
        target = free_name(real.presets.names(), name)
        copy_preset(demo, name, real, target)
        stored.append(target)
    return stored

"""The bodies of ``/system_stats`` and ``/features`` for the simulated server."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulator.config import SimulatorConfig

MAX_UPLOAD_SIZE = 104_857_600


def system_stats(config: SimulatorConfig, port: int | None) -> dict[str, Any]:
    ram_total = config.ram_bytes
    ram_free = int(ram_total * 0.95)
    system = {
        "os": sys.platform if config.has_jobs_api else os.name,
        "ram_total": ram_total,
        "ram_free": ram_free,
        "comfyui_version": config.version,
        "required_frontend_version": "1.27.10",
        "installed_templates_version": "0.1.95",
        "required_templates_version": "0.1.95",
        "python_version": sys.version,
        "pytorch_version": "none (Batchline simulator)",
        "embedded_python": False,
        "argv": ["batchline", "simulate", "--port", str(port or 0)],
    }
    device = {
        "name": "cpu",
        "type": "cpu",
        "index": None,
        "vram_total": ram_total,
        "vram_free": ram_free,
        "torch_vram_total": ram_total,
        "torch_vram_free": ram_free,
    }
    return {"system": system, "devices": [device]}


def features() -> dict[str, Any]:
    return {"supports_preview_metadata": True, "max_upload_size": MAX_UPLOAD_SIZE}

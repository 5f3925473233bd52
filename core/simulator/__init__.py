"""A faithful ComfyUI 0.3.64 stand-in (aiohttp on loopback) with fault injection, for tests."""

from core.simulator.config import FaultSettings, SimulatorConfig
from core.simulator.simulator import Simulator

__all__ = ["FaultSettings", "Simulator", "SimulatorConfig"]

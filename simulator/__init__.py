"""A faithful ComfyUI 0.3.64 stand-in (aiohttp on loopback) with fault injection, for tests."""

from simulator.config import FaultSettings, SimulatorConfig
from simulator.simulator import Simulator

__all__ = ["FaultSettings", "Simulator", "SimulatorConfig"]

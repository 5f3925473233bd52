"""Batchline's Qt-free core: ledger, job states, ComfyUI client, simulator, controller, CLI."""

__version__ = "0.1.0"

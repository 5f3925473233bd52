"""Batchline's Qt-free core: ledger, job states, ComfyUI client, controller, batches and presets,
settings, the local HTTP API and the simulated ComfyUI (the `batchline` command is in cli/)."""

__version__ = "0.1.0"

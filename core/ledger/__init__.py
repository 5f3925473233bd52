"""The job ledger (peewee on SQLite): batches, jobs, attempts, transitions, presets, settings."""

from core.ledger.ledger import Ledger
from core.ledger.records import (
    AttemptRecord,
    BatchRecord,
    JobRecord,
    NewJob,
    PendingJob,
    PresetRecord,
    Refused,
    RequesterCap,
    TransitionRecord,
)
from core.ledger.stores import PresetContent, PresetOutcome

__all__ = [
    "AttemptRecord",
    "BatchRecord",
    "JobRecord",
    "Ledger",
    "NewJob",
    "PendingJob",
    "PresetContent",
    "PresetOutcome",
    "PresetRecord",
    "Refused",
    "RequesterCap",
    "TransitionRecord",
]

"""How job states look in the GUI: capitalised labels and colours."""

from __future__ import annotations

from PySide6.QtGui import QColor

from core.job_state import JobState

# Soft backgrounds that keep black text readable; the hue says where a job stands.
STATE_COLOURS: dict[JobState, str] = {
    JobState.pending: "#e3e6ea",
    JobState.queued: "#cfe2ff",
    JobState.running: "#ffe69c",
    JobState.cancelling: "#ffd1a8",
    JobState.succeeded: "#c8f0cf",
    JobState.failed: "#f8c4c8",
    JobState.cancelled: "#d3d3d3",
}


def state_label(state: JobState) -> str:
    return state.value.capitalize()


def state_colour(state: JobState) -> QColor:
    return QColor(STATE_COLOURS[state])

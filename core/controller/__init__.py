"""The controller: admission, submission, observation, cancel and retry for one ledger."""

from core.controller.controller import Controller
from core.controller.status import Connection, ControllerStatus, Progress
from core.ledger.settings import DEFAULT_SERVER, ControllerConfig, server_list

__all__ = [
    "DEFAULT_SERVER",
    "Connection",
    "Controller",
    "ControllerConfig",
    "ControllerStatus",
    "Progress",
    "server_list",
]

"""The ComfyUI client: HTTP routes (ComfyClient), WebSocket events (Listener) and their types."""

from core.comfy.auth import BasicAuth, BearerAuth, RedactAuthorization
from core.comfy.backoff import Backoff
from core.comfy.client import DEFAULT_TIMEOUT, ComfyClient, new_prompt_id, server_address
from core.comfy.download import DEFAULT_MAX_BYTES
from core.comfy.events import (
    Connected,
    Disconnected,
    Event,
    Executed,
    Executing,
    ExecutionCached,
    ExecutionError,
    ExecutionInterrupted,
    ExecutionStart,
    ExecutionSuccess,
    PreviewImage,
    Progress,
    Reconnected,
    Status,
)
from core.comfy.failures import is_oom
from core.comfy.jobs import JobInfo, PromptLookup, PromptState
from core.comfy.listener import Listener
from core.comfy.responses import (
    LEDGER_MARK,
    Device,
    HistoryEntry,
    ImageRef,
    QueueItem,
    QueueSnapshot,
    SubmitResult,
    SystemStats,
)
from core.comfy.upload import UploadedImage

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_TIMEOUT",
    "LEDGER_MARK",
    "Backoff",
    "BasicAuth",
    "BearerAuth",
    "ComfyClient",
    "Connected",
    "Device",
    "Disconnected",
    "Event",
    "Executed",
    "Executing",
    "ExecutionCached",
    "ExecutionError",
    "ExecutionInterrupted",
    "ExecutionStart",
    "ExecutionSuccess",
    "HistoryEntry",
    "ImageRef",
    "JobInfo",
    "Listener",
    "PreviewImage",
    "Progress",
    "PromptLookup",
    "PromptState",
    "QueueItem",
    "QueueSnapshot",
    "Reconnected",
    "RedactAuthorization",
    "Status",
    "SubmitResult",
    "SystemStats",
    "UploadedImage",
    "is_oom",
    "new_prompt_id",
    "server_address",
]

"""Every option a ledger keeps, declared once: its key, default and meaning.

The command line, the window and the controller read and write options only through this module:
`Settings` holds the options edited together (servers, output folder, the controller's knobs);
a `Setting` reads or writes one of them, as the pause flag is, each time it is needed.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from core.errors import InputError, SettingError
from core.ledger.stores import DISPATCH_PAUSED
from core.paths import default_output_dir

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ledger import Ledger

T = TypeVar("T")
log = logging.getLogger(__name__)

DEFAULT_SERVER = "http://127.0.0.1:8188"  # ComfyUI's own default address
MAX_PICTURES_PER_JOB = 100  # a workflow saving thousands of pictures would fill the folder


def server_list(text: str) -> list[str]:
    """The servers of a setting or ``--server`` value: one address, or several separated by
    commas or spaces (one controller drives them all); repeats dropped, order kept."""
    servers = [part.strip() for part in text.replace(",", " ").split()]
    return list(dict.fromkeys(server for server in servers if server))


AUTO: Literal["auto"] = "auto"  # the deep queue's default: the caps left at default adapt
DEFAULT_CAP = 3  # the global and per-requester caps' default: the queue's shallowest depth
MAX_COUNT = 1_000_000_000  # the most any cap, limit or count may be
MAX_SECONDS = 30 * 86_400.0  # the longest any interval or window may be


def shown(value: Any) -> str:
    """A value as a setting's JSON writes it (``"many"``, ``1e+400`` as ``Infinity``)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def count(value: Any, name: str) -> int:
    """``value`` as a count from 1 to MAX_COUNT: a whole number, not a bool, ``2.0`` or
    ``1e999`` (InputError naming ``name`` otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} must be a whole number, not {shown(value)}")
    if value < 1:
        raise InputError(f"{name} must be at least 1")
    if value > MAX_COUNT:
        raise InputError(f"{name} must be at most {MAX_COUNT}, not {value}")
    return value


def seconds(value: Any, name: str) -> float:
    """``value`` as a length of time: a number of seconds above 0, at most MAX_SECONDS."""
    number = not isinstance(value, bool) and isinstance(value, int | float)
    if not number or not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise InputError(
            f"{name} must be a positive number of seconds (at most {MAX_SECONDS:g}), "
            f"not {shown(value)}"
        )
    return float(value)


@dataclass(frozen=True)
class ControllerConfig:
    """Caps, intervals and limits of one controller.

    Attributes:
        global_cap: ComfyUI running + pending (all clients) at which we stop submitting.
            Set to anything but its default (3), a ceiling; at 3, a ceiling unless the deep
            queue deepens it.
        per_requester_cap: queued + running jobs one requester may have at once (set to
            anything but 3, a ceiling; at 3, a lone requester may fill the queue when
            ``deep_queue`` is ``"auto"``).
        deep_queue: ``"auto"`` (the default): the caps left at 3 adapt to the measured job
            time, so that short jobs keep the GPU fed: the queue deepens up to
            ``max_queue_depth``, and a requester alone in waiting may fill it (with others
            waiting, each is held to the per-requester cap). ``true``: the global cap deepens
            so for short jobs, whatever its value; the per-requester cap is a ceiling.
            ``false``: both caps are ceilings however short the jobs. How deep and why:
            `core.controller.admission`.
        max_queue_depth: the deep queue's ceiling: ComfyUI running + pending (all clients)
            never exceeds it (nor the global cap, when that is higher).
        max_attempts: automatic attempts per job.
        poll_active_s / poll_idle_s: /queue + /history polling while jobs are active / idle.
        grace_s: how long a prompt may be in neither queue nor history before it counts as gone.
        settle_s: how long an attempt whose submission got no answer is looked up before a
            new attempt opens, counted from when it was written (the 30 s request timeout plus
            twice that: ComfyUI may queue a prompt long after the client gave up).
        max_pictures_per_job: the most pictures downloaded for one job (a workflow saving
            thousands would fill the folder); the rest are left on the server, and the job says so.
        stall_s: a prompt running longer than this is flagged stalled (never failed).
        offline_first_s / offline_max_s: first and longest wait between tries while the
            server is unreachable (exponential in between, jittered).
    """

    global_cap: int = DEFAULT_CAP
    per_requester_cap: int = DEFAULT_CAP
    deep_queue: bool | Literal["auto"] = AUTO
    max_queue_depth: int = 8
    max_attempts: int = 3
    poll_active_s: float = 1.0
    poll_idle_s: float = 5.0
    grace_s: float = 10.0
    settle_s: float = 90.0
    max_pictures_per_job: int = MAX_PICTURES_PER_JOB
    stall_s: float = 30 * 60.0
    offline_first_s: float = 1.0
    offline_max_s: float = 30.0

    def __post_init__(self) -> None:
        counts = ("global_cap", "per_requester_cap", "max_attempts", "max_queue_depth")
        for name in (*counts, "max_pictures_per_job"):
            count(getattr(self, name), name.replace("_", "-"))
        positive = ("poll_active_s", "poll_idle_s", "grace_s", "settle_s", "stall_s")
        for name in (*positive, "offline_first_s", "offline_max_s"):
            seconds(getattr(self, name), name)
        if not isinstance(self.deep_queue, bool) and self.deep_queue != AUTO:
            raise InputError(
                f'deep_queue must be true, false or "auto", not {shown(self.deep_queue)}'
            )

    @property
    def deepens_queue(self) -> bool:
        """Whether the queue deepens for short jobs: the deep queue on, or auto with the
        global cap left at its default."""
        auto = self.deep_queue == AUTO and self.global_cap == DEFAULT_CAP
        return self.deep_queue is True or auto

    @property
    def lone_requester_fills(self) -> bool:
        """Whether a requester alone in waiting may fill the queue: auto, with the
        per-requester cap left at its default."""
        return self.deep_queue == AUTO and self.per_requester_cap == DEFAULT_CAP

    def caps_text(self) -> str:
        """The caps as the command line shows them: ``auto`` where they adapt."""
        depth = self.max_queue_depth
        if self.deepens_queue and depth > self.global_cap:
            queued = f"{self.global_cap}, auto up to {depth} for short jobs"
        else:
            queued = str(self.global_cap)
        mine = str(self.per_requester_cap)
        if self.lone_requester_fills:
            mine += ", auto: the whole queue for a lone requester"
        return f"max queued {queued}; per requester {mine}"

    def with_overrides(self, **overrides: Any) -> ControllerConfig:
        """A copy with the given fields replaced (None values are ignored)."""
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


def _as_is(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One option in the ledger's settings: its key, its value when never set, what it means,
    and how its value is turned from and into JSON."""

    key: str
    default: T
    description: str
    decode: Callable[[Any], T]
    encode: Callable[[T], Any] = _as_is

    def get(self, ledger: Ledger) -> T:
        """The stored value, checked: the default when never set (or null).

        Raises:
            SettingError: it is set but not JSON, or of the wrong type or range: one line
                naming the setting and its value, never the default in its place.
        """
        stored = ledger.settings.get(self.key)
        if stored is None:
            return self.default
        try:
            return self.decode(stored)
        except InputError as exc:
            raise SettingError(self.key, shown(stored), str(exc)) from None

    def set(self, ledger: Ledger, value: T) -> None:
        ledger.settings.set(self.key, self.encode(value))


_UNKNOWN_SAID: set[str] = set()  # the unknown knobs already logged, once a process


def _controller_config(stored: Any) -> ControllerConfig:
    """A later version's knobs are ignored (an older one reads the ledger too), said once."""
    if not isinstance(stored, dict):
        raise InputError("it must be a JSON object of the controller's knobs")
    known = {f.name for f in fields(ControllerConfig)}
    for name in sorted(set(stored) - known - _UNKNOWN_SAID):
        _UNKNOWN_SAID.add(name)
        log.warning(
            "the setting controller has a knob %r this version does not know: ignored "
            "(it knows %s)",
            name,
            ", ".join(sorted(known)),
        )
    return ControllerConfig(**{k: v for k, v in stored.items() if k in known})


def _text(stored: Any) -> str:
    if not isinstance(stored, str):
        raise InputError("it must be text")
    return stored


def _folder(stored: Any) -> Path:
    """An absolute folder (``~`` is the home folder): a relative one would depend on where a
    command was started, and an empty one would be no folder at all."""
    if not isinstance(stored, str) or not stored.strip():
        raise InputError("it must be a folder's absolute path")
    path = Path(stored).expanduser()
    if not path.is_absolute():
        raise InputError(
            "it must be an absolute path (a relative one depends on where a command starts)"
        )
    return path


def _folder_text(path: Path | None) -> str | None:
    """The output folder as stored: null when unset; a relative one refused when written."""
    if path is None:
        return None
    _folder(str(path))
    return str(path)


def _flag(stored: Any) -> bool:
    if not isinstance(stored, bool):
        raise InputError("it must be true or false")
    return stored


def _moment(stored: Any) -> float:
    """A moment in the ledger's clock (seconds since the epoch; 0: never)."""
    if isinstance(stored, bool) or not isinstance(stored, int | float) or not stored >= 0:
        raise InputError("it must be a moment in seconds")
    return float(stored)


def _limit(stored: Any) -> int:
    return count(stored, "it")


SERVER: Setting[str] = Setting(
    "server.url",
    "",
    "ComfyUI's address, or several separated by commas (one controller feeds them all); "
    f"empty: {DEFAULT_SERVER}. `--server` overrides it for one command.",
    _text,
)
OUTPUT_DIR: Setting[Path | None] = Setting(
    "output_dir",
    None,
    "The folder pictures are downloaded to, one subfolder per batch; unset: Batchline's "
    "folder in the user's pictures.",
    _folder,
    _folder_text,
)
WILDCARDS_FOLDER: Setting[Path | None] = Setting(
    "wildcards_dir",
    None,
    "The folder of wildcard files: `__animals__` in a text input is one line of its "
    "animals.txt (lines may hold wildcards in turn); unset: the folder wildcards in "
    "Batchline's data folder.",
    _folder,
    _folder_text,
)
CONTROLLER: Setting[ControllerConfig] = Setting(
    "controller",
    ControllerConfig(),
    "The controller's caps, intervals and limits (ControllerConfig); `batchline run` options "
    'override them for one run. deep_queue "auto" (the default): caps left at 3 deepen for '
    "short jobs, up to max_queue_depth; a cap set to another value is a ceiling.",
    _controller_config,
    asdict,
)
PAUSED: Setting[bool] = Setting(
    DISPATCH_PAUSED,
    False,
    "No job is sent while set (`batchline pause`/`resume`, the window's Pause); prompts "
    "already sent keep running. The controller sets it itself when a ComfyUI ignores its "
    "prompt ids (too old to be followed safely).",
    _flag,
)

MODELS_ASKED: Setting[float] = Setting(
    "servers.models_asked_at",
    0.0,
    "When the artist last asked to read every server's models again (`batchline servers "
    "--refresh`, the window's Refresh models): the controller reads again each server whose "
    "models it read before then.",
    _moment,
)

MAX_PENDING_PER_REQUESTER: Setting[int] = Setting(
    "limits.max_pending_per_requester",
    20_000,
    "The most unfinished jobs one requester may have: a batch that would go past it is refused "
    "whole (the API answers 429 with a wait estimate; `batchline queue` says so and queues "
    "nothing). `serve --max-pending-per-requester` overrides it for the API.",
    _limit,
)
MAX_BACKLOG: Setting[int] = Setting(
    "limits.max_backlog",
    100_000,
    "The most unfinished jobs of all requesters together: a batch that would go past it is "
    "refused whole, as for the requester's quota. `serve --max-backlog` overrides it for the API.",
    _limit,
)

EXPORT_SIDECAR: Setting[bool] = Setting(
    "export.sidecar",
    False,
    "Exporting starred pictures (the window's Export starred, `batchline starred`) also "
    "writes each one's parameters (prompt, seed, sampler, size, model, the job's values) as "
    "<name>.json beside its copy; `batchline starred --sidecar` asks for it once.",
    _flag,
)

NOTIFY_DESKTOP: Setting[bool] = Setting(
    "notify.desktop",
    True,
    "Say on the desktop when a batch ends or needs attention (the system's notifications, else "
    "the tray while a window is open); a batch's own choice (`queue --no-notify`) can turn it "
    "off for that batch. Webhooks are sent either way.",
    _flag,
)

ALLOWED_ORIGINS: Setting[str] = Setting(
    "api.allowed_origins",
    "",
    "Web pages (origins, scheme://host:port) besides the ComfyUI servers in server.url that "
    "may send workflows to the API's POST /v1/comfyui/workflows from a browser (the "
    "Send to Batchline extension), separated by commas; every other route answers no page.",
    _text,
)

EVERY_SETTING: tuple[Setting[Any], ...] = (
    SERVER,
    OUTPUT_DIR,
    WILDCARDS_FOLDER,
    CONTROLLER,
    PAUSED,
    MAX_PENDING_PER_REQUESTER,
    MAX_BACKLOG,
    EXPORT_SIDECAR,
    NOTIFY_DESKTOP,
    ALLOWED_ORIGINS,
)


def wildcards_folder(ledger: Ledger) -> Path:
    """Where `__name__` wildcards are read: the folder set, else ``wildcards`` in the ledger's
    folder (it need not exist: a wildcard naming a file says then that there is none)."""
    return WILDCARDS_FOLDER.get(ledger) or ledger.folder / "wildcards"


def check_every_setting(ledger: Ledger) -> None:
    """Read each setting: a command that runs on (``run``, ``serve``) refuses a bad one at its
    start, in one line (SettingError), rather than when it is first needed."""
    for setting in EVERY_SETTING:
        setting.get(ledger)


@dataclass(frozen=True)
class Settings:
    """The options edited together (the settings dialog), as the CLI, the window and the
    controller use them. The pause flag is left out: it is a command, read and written on its
    own (`PAUSED`), so saving these never undoes a pause or a resume made meanwhile.

    Attributes:
        server: `SERVER` as stored ("" when never set).
        output_dir: `OUTPUT_DIR` as stored (None when never set).
        controller: `CONTROLLER`.
    """

    server: str = SERVER.default
    output_dir: Path | None = OUTPUT_DIR.default
    controller: ControllerConfig = CONTROLLER.default

    @classmethod
    def load(cls, ledger: Ledger) -> Settings:
        return cls(SERVER.get(ledger), OUTPUT_DIR.get(ledger), CONTROLLER.get(ledger))

    def save(self, ledger: Ledger) -> None:
        SERVER.set(ledger, self.server)
        OUTPUT_DIR.set(ledger, self.output_dir)
        CONTROLLER.set(ledger, self.controller)

    @property
    def servers(self) -> list[str]:
        """The servers to drive: those set, else ComfyUI's default address."""
        return server_list(self.server) or [DEFAULT_SERVER]

    @property
    def output_folder(self) -> Path:
        """Where pictures go: the folder set, else the default one."""
        return self.output_dir or default_output_dir()

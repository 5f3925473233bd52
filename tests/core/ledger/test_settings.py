"""The options a ledger keeps: one declaration each, the same values for the CLI and the window."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import InputError, SettingError
from core.ledger import Ledger, PresetContent
from core.ledger import settings as settings_module
from core.ledger.settings import (
    CONTROLLER,
    DEFAULT_SERVER,
    OUTPUT_DIR,
    PAUSED,
    SERVER,
    WILDCARDS_FOLDER,
    ControllerConfig,
    Setting,
    Settings,
    check_every_setting,
    wildcards_folder,
)
from core.paths import default_output_dir
from core.presets import workflow_hash
from tests.core.controller.conftest import queue
from tests.core.helpers import NOISE_WORKFLOW


def test_a_new_ledger_has_every_default(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        loaded = Settings.load(ledger)
        assert loaded == Settings("", None, ControllerConfig())
        assert loaded.servers == [DEFAULT_SERVER]
        assert loaded.output_folder == default_output_dir()
        assert PAUSED.get(ledger) is False
        assert ledger.settings.all() == {}, "reading never writes"


def test_saved_settings_load_back_under_their_keys(tmp_path: Path) -> None:
    chosen = Settings(
        "http://gpu-1:8188, http://gpu-2:8188",
        tmp_path / "pictures",
        ControllerConfig(global_cap=5, max_attempts=2),
    )
    with Ledger(tmp_path / "home") as ledger:
        chosen.save(ledger)
        assert Settings.load(ledger) == chosen
        stored = ledger.settings.all()
    assert chosen.servers == ["http://gpu-1:8188", "http://gpu-2:8188"]
    assert stored["server.url"] == "http://gpu-1:8188, http://gpu-2:8188"
    assert stored["output_dir"] == str(tmp_path / "pictures")
    assert stored["controller"]["global_cap"] == 5


@pytest.mark.expect_log("core.ledger.settings")
def test_values_an_older_or_newer_version_stored_are_read(tmp_path: Path) -> None:
    """A knob this version does not know is ignored; ``~`` in a folder is the home folder."""
    with Ledger(tmp_path / "home") as ledger:
        ledger.settings.set("controller", {"global_cap": 4, "a_later_knob": True})
        ledger.settings.set("output_dir", "~/pictures")
        ledger.settings.set("server.url", "")
        loaded = Settings.load(ledger)
    assert loaded.controller == ControllerConfig(global_cap=4)
    assert loaded.output_dir == Path.home() / "pictures"
    assert loaded.servers == [DEFAULT_SERVER]


def test_a_stored_knob_out_of_range_is_one_line_naming_it(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        ledger.settings.set("controller", {"global_cap": 0})
        with pytest.raises(SettingError) as refused:
            CONTROLLER.get(ledger)
    assert str(refused.value) == (
        'the setting controller = {"global_cap": 0} is refused: global-cap must be at least 1'
    )


# Each hand-edited value the probe tried, and what the refusal says of it.
BAD_SETTINGS = [
    ("controller", "fast", "a JSON object"),
    ("controller", ["global_cap", 4], "a JSON object"),
    ("controller", {"global_cap": 1e999}, "global-cap must be a whole number, not Infinity"),
    ("controller", {"global_cap": 2.5}, "global-cap must be a whole number"),
    ("controller", {"max_attempts": 10**12}, "max-attempts must be at most 1000000000"),
    ("controller", {"settle_s": "soon"}, "settle_s must be a positive number of seconds"),
    ("controller", {"stall_s": True}, "stall_s must be a positive number of seconds"),
    ("controller", {"deep_queue": "yes"}, 'deep_queue must be true, false or "auto"'),
    ("output_dir", 5, "absolute path"),
    ("output_dir", "", "absolute path"),
    ("output_dir", "pictures", "must be an absolute path"),
    ("server.url", 8188, "it must be text"),
    ("limits.max_backlog", "many", 'it must be a whole number, not "many"'),
    ("limits.max_pending_per_requester", 1e400, "it must be a whole number, not Infinity"),
    ("limits.max_pending_per_requester", 0, "it must be at least 1"),
    ("dispatch.paused", "yes", "it must be true or false"),
    ("export.sidecar", 1, "it must be true or false"),
]


@pytest.mark.parametrize(("key", "value", "why"), BAD_SETTINGS)
def test_a_bad_setting_is_refused_in_one_line_never_its_default(
    tmp_path: Path, key: str, value: object, why: str
) -> None:
    with Ledger(tmp_path / "home") as ledger:
        ledger.settings.set(key, value)
        with pytest.raises(SettingError) as refused:
            check_every_setting(ledger)
    message = str(refused.value)
    assert message.startswith(f"the setting {key} = "), message
    assert why in message
    assert "\n" not in message


def store_raw(ledger: Ledger, key: str, text: str) -> None:
    """A setting written by hand into the file: text that need not be JSON."""
    with ledger.handle.tx():
        ledger.handle.database.execute_sql(
            "INSERT OR REPLACE INTO setting (key, value_json) VALUES (?, ?)", (key, text)
        )


def test_a_pause_flag_that_is_not_json_refuses_every_submission(ledger: Ledger) -> None:
    """The pause flag is read inside each submission's transaction: broken, nothing is sent
    on a guess, and the refusal names the setting."""
    if True:
        # This folder's ledger fixture holds "demo"; the controller's `queue` queues "noise".
        ledger.presets.add("noise", PresetContent(workflow_hash(NOISE_WORKFLOW), NOISE_WORKFLOW))
        (job_id,) = queue(ledger, 1)
        store_raw(ledger, "dispatch.paused", "{tru")
        with pytest.raises(SettingError, match=r"^the setting dispatch.paused = '\{tru' is "):
            PAUSED.get(ledger)
        with pytest.raises(SettingError, match="it is not JSON"):
            ledger.submit_attempt(job_id, "p-1", "http://x", "wf")
        store_raw(ledger, "dispatch.paused", '"no"')
        with pytest.raises(SettingError, match="it must be true or false"):
            ledger.submit_attempt(job_id, "p-1", "http://x", "wf")
        assert ledger.attempts(job_id) == []


@pytest.mark.expect_log("core.ledger.settings")
def test_an_unknown_knob_is_said_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """``max_queued`` (the option's name, not the knob's) is not taken for ``global_cap``,
    nor dropped silently."""
    with Ledger(tmp_path / "home") as ledger:
        ledger.settings.set("controller", {"max_queued": 0})
        assert CONTROLLER.get(ledger) == ControllerConfig()
        CONTROLLER.get(ledger)
    said = [r.getMessage() for r in caplog.records if "max_queued" in r.getMessage()]
    assert len(said) == 1
    assert "does not know: ignored" in said[0]


def test_saving_the_settings_never_undoes_a_pause(tmp_path: Path) -> None:
    """The dialog saves what it loaded; a `batchline pause` made meanwhile stays."""
    with Ledger(tmp_path / "home") as ledger:
        loaded = Settings.load(ledger)
        PAUSED.set(ledger, True)
        loaded.save(ledger)
        assert PAUSED.get(ledger) is True
        PAUSED.set(ledger, False)
        assert PAUSED.get(ledger) is False


def test_every_option_is_declared_once_with_a_description() -> None:
    declared = [v for v in vars(settings_module).values() if isinstance(v, Setting)]
    assert {s.key for s in declared} == {
        "server.url",
        "output_dir",
        "controller",
        "dispatch.paused",
        "limits.max_pending_per_requester",
        "limits.max_backlog",
        "servers.models_asked_at",
        "wildcards_dir",
        "export.sidecar",
        "notify.desktop",
        "api.allowed_origins",
    }
    assert len({s.key for s in declared}) == len(declared)
    assert all(len(s.description) > 20 for s in declared)
    assert (Settings().server, Settings().output_dir) == (SERVER.default, OUTPUT_DIR.default)


def test_the_caps_left_at_their_defaults_adapt_and_caps_set_otherwise_are_ceilings() -> None:
    auto = ControllerConfig()
    assert auto.deep_queue == "auto"
    assert (auto.deepens_queue, auto.lone_requester_fills) == (True, True)
    assert "auto up to 8" in auto.caps_text()
    assert "auto: the whole queue for a lone requester" in auto.caps_text()
    lower = ControllerConfig(global_cap=2, per_requester_cap=4)
    assert (lower.deepens_queue, lower.lone_requester_fills) == (False, False)
    assert lower.caps_text() == "max queued 2; per requester 4"
    off = ControllerConfig(deep_queue=False)
    assert (off.deepens_queue, off.lone_requester_fills) == (False, False)
    on = ControllerConfig(deep_queue=True, global_cap=2)
    assert (on.deepens_queue, on.lone_requester_fills) == (True, False)


def test_auto_is_kept_in_the_ledger_as_it_is_shown(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        Settings(controller=ControllerConfig()).save(ledger)
        assert ledger.settings.get("controller")["deep_queue"] == "auto"
        assert Settings.load(ledger).controller.deepens_queue


def test_the_wildcards_folder_is_the_data_folders_unless_set(tmp_path: Path) -> None:
    with Ledger(tmp_path / "home") as ledger:
        assert wildcards_folder(ledger) == tmp_path / "home" / "wildcards"
        WILDCARDS_FOLDER.set(ledger, tmp_path / "mine")
        assert wildcards_folder(ledger) == tmp_path / "mine"
        with pytest.raises(InputError, match="must be an absolute path"):
            WILDCARDS_FOLDER.set(ledger, Path("relative"))
        ledger.settings.set(WILDCARDS_FOLDER.key, "relative")
        with pytest.raises(SettingError, match="wildcards_dir"):
            wildcards_folder(ledger)

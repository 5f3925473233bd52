"""The options a ledger keeps: one declaration each, the same values for the CLI and the window."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import settings as settings_module
from core.errors import InputError
from core.ledger import Ledger
from core.paths import default_output_dir
from core.settings import (
    CONTROLLER,
    DEFAULT_SERVER,
    OUTPUT_DIR,
    PAUSED,
    SERVER,
    ControllerConfig,
    Setting,
    Settings,
)


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
        with pytest.raises(InputError, match=r"^global-cap must be at least 1$"):
            CONTROLLER.get(ledger)


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
    }
    assert len({s.key for s in declared}) == len(declared)
    assert all(len(s.description) > 20 for s in declared)
    assert (Settings().server, Settings().output_dir) == (SERVER.default, OUTPUT_DIR.default)

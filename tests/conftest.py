"""Test-wide settings: offscreen Qt, GUI auto-marking, shared data paths, no token in logs."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends.fail import Keyring as FailKeyring

# Qt must pick its platform before any QApplication exists.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

DATA = Path(__file__).parent / "data"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses a Qt application as `gui`, so `-m "not gui"` is headless."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "qapp" in fixtures or "qtbot" in fixtures:
            item.add_marker(pytest.mark.gui)


# The tokens the suite's secured simulators ask for: no log record may ever hold one.
TEST_TOKENS = ("s3cret",)


def _not_a_frame(record: logging.LogRecord) -> bool:
    """websockets logs each frame as ``< %s`` or ``> %s``: those are not kept (a flood of
    frames would fill the memory), the handshake's lines are."""
    return record.msg not in ("< %s", "> %s")


@pytest.fixture(autouse=True)
def no_token_in_logs(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail any test whose log records hold a test token; the WebSocket handshake (which
    carries the Authorization header) is recorded at DEBUG so that it is checked too."""
    socket_log = logging.getLogger("core.comfy.listener.socket")
    caplog.set_level(logging.DEBUG, logger=socket_log.name)
    socket_log.addFilter(_not_a_frame)
    yield
    socket_log.removeFilter(_not_a_frame)
    records = caplog.get_records("setup") + caplog.get_records("call")
    leaked = [r.getMessage() for r in records if any(t in r.getMessage() for t in TEST_TOKENS)]
    assert not leaked, f"a test token was logged: {leaked[0]}"


@pytest.fixture
def data_dir() -> Path:
    """The folder of test data copied from ../shared (recordings, workflows, PNGs)."""
    return DATA


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring for tests."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def no_keyring():
    previous = keyring.get_keyring()
    keyring.set_keyring(FailKeyring())
    yield
    keyring.set_keyring(previous)

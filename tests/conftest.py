"""Test-wide settings: offscreen Qt, GUI auto-marking, shared data paths, a Pictures folder of
the tests' own, no token in logs, no unexpected warning in logs."""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends.fail import Keyring as FailKeyring

from tests.notification_bus import FakeNotificationServer, SessionBus, dbus_daemon

# Qt must pick its platform before any QApplication exists.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

DATA = Path(__file__).parent / "data"

# The default output folder is the user's Pictures folder (platformdirs reads it from
# $XDG_CONFIG_HOME/user-dirs.dirs): a test that runs a controller without an output folder of
# its own writes into this sandbox, never into the Pictures folder of whoever runs the suite.
SANDBOX = Path(tempfile.mkdtemp(prefix="batchline-tests-"))
atexit.register(shutil.rmtree, SANDBOX, ignore_errors=True)
(SANDBOX / "config").mkdir()
(SANDBOX / "config" / "user-dirs.dirs").write_text(f'XDG_PICTURES_DIR="{SANDBOX}/Pictures"\n')
os.environ["XDG_CONFIG_HOME"] = str(SANDBOX / "config")
# No test shows a notification on the desktop of whoever runs the suite: the session bus is
# none (tests.notification_bus makes a bus of the test's own where a test wants one).
os.environ["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={SANDBOX}/no-session-bus"


@pytest.fixture
def notification_server(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakeNotificationServer]:
    """A real D-Bus session bus of the test's own (dbus-daemon) with a fake freedesktop
    notification server on it; the session bus of the test (and of what it starts) is it."""
    if dbus_daemon() is None:
        pytest.skip("dbus-daemon is not installed (Debian package dbus): no session bus to test on")
    bus = SessionBus(tmp_path_factory.mktemp("bus"))
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", bus.address)
    server = FakeNotificationServer(bus.address)
    yield server
    server.stop()
    bus.stop()


# tests.leaks: no asyncio task or QTimer left running after a test.
pytest_plugins = ["pytester", "tests.leaks"]


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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "expect_log(logger, level='WARNING'): the test expects records at exactly that level"
        " from the logger or its children (several marks may be given)",
    )


class UnexpectedLogs(logging.Handler):
    """Keeps each record at WARNING or worse that the running test does not expect.

    A test expects records with ``@pytest.mark.expect_log("core.controller", "WARNING")`` or,
    as qutebrowser's tests do, by setting a named logger (or one of its parents) to exactly
    the record's level while it is logged: ``caplog.at_level(logging.WARNING, logger=...)``.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.expected: list[tuple[str, int]] = []
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if not self._expects(record):
            self.records.append(record)

    def _expects(self, record: logging.LogRecord) -> bool:
        for name, level in self.expected:
            if record.levelno == level and (record.name + ".").startswith(name + "."):
                return True
        logger: logging.Logger | None = logging.getLogger(record.name)
        while logger is not None and logger is not logging.root:
            if logger.level == record.levelno:
                return True
            logger = logger.parent
        return False


def _expected(logger: str, level: str = "WARNING") -> tuple[str, int]:
    return logger, logging.getLevelNamesMapping()[level]


@pytest.fixture(scope="session")
def unexpected_logs() -> Iterator[UnexpectedLogs]:
    handler = UnexpectedLogs()
    logging.root.addHandler(handler)
    yield handler
    logging.root.removeHandler(handler)


@pytest.fixture(autouse=True)
def no_unexpected_warnings(
    request: pytest.FixtureRequest, unexpected_logs: UnexpectedLogs
) -> Iterator[None]:
    """Fail any test that logs a warning or error it does not expect (in its fixtures too)."""
    unexpected_logs.expected = [
        _expected(*mark.args, **mark.kwargs) for mark in request.node.iter_markers("expect_log")
    ]
    unexpected_logs.records = []
    yield
    records, unexpected_logs.records, unexpected_logs.expected = unexpected_logs.records, [], []
    lines = [f"{r.name} {r.levelname}: {r.getMessage()}" for r in records]
    assert not lines, "unexpected log records (mark the test expect_log if it expects them):\n" + (
        "\n".join(lines)
    )


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

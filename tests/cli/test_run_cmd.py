"""`batchline run` and `batchline serve` end to end on the simulator: outputs, changes printed,
the lease, signals, tokens, several servers, a full or unwritable output folder, and the
long-running controller of a data folder (ready line, published status, the demo, its ledger
deleted or replaced under it)."""

from __future__ import annotations

import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from cli import run_cmd
from core.batch import BatchSpec, SeedPlan, queue_batch
from core.comfy.token_store import save_token
from core.controller.published import APP, TERMINAL, Published, read_published
from core.job_state import AttemptResult, JobState, Reason
from core.ledger import Ledger
from simulator import SimulatorConfig
from simulator.thread import SimulatorThread
from tests.cli.conftest import Cli, Result, batchline, run_until_idle
from tests.core.disks import fill, small_disk
from tests.core.helpers import succeed_late


def test_run_until_idle_produces_outputs_and_prints_changes(
    cli: Cli, noise: str, sim_thread: SimulatorThread, outputs: Path
) -> None:
    ids = cli("queue", "noise", "--count", "3").out.split()
    printed = run_until_idle(cli, sim_thread)
    for job_id in ids:
        assert f"{job_id} queued" in printed
        (done,) = [line for line in printed.splitlines() if line.startswith(f"{job_id} succeeded")]
        path = Path(done.split(" -> ")[1])
        assert path.is_file()
        assert path.is_relative_to(outputs)
    listed = cli("jobs", "--json")
    assert [job["state"] for job in listed.json()] == ["succeeded"] * 3
    # read in bulk, the same as job by job (with the place in line, none when finished)
    shown = [cli("show", job_id, "--json").json() for job_id in ids]
    assert listed.json() == [{**job, "place": None, "estimated_wait_s": None} for job in shown]
    assert len(listed.out.splitlines()) == 3 + 2


def test_run_refuses_when_another_controller_holds_the_lease(home: Path, noise: str) -> None:
    with Ledger(home) as ledger:
        ledger.lease.acquire()
        child = batchline(home, "--server", "http://127.0.0.1:9", "run", "--until-idle")
        _out, err = child.communicate(timeout=60)
    assert child.returncode == 1
    assert err.strip().splitlines() == [
        f"batchline: another Batchline controller is running, pid {__import__('os').getpid()}"
    ]


@pytest.mark.parametrize(
    ("sig", "pytest_ignores_sigint"),
    [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGINT, True)],
    ids=["SIGINT", "SIGTERM", "SIGINT-pytest-started-as-a-background-job"],
)
def test_run_stops_cleanly_on_a_signal(
    home: Path,
    noise: str,
    sim_thread: SimulatorThread,
    sig: signal.Signals,
    pytest_ignores_sigint: bool,
) -> None:
    # A shell without job control starts `pytest ... &` with SIGINT ignored (inherited).
    before = signal.getsignal(signal.SIGINT)
    if pytest_ignores_sigint:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        child = batchline(home, "--server", sim_thread.url, "run")
    finally:
        signal.signal(signal.SIGINT, before)
    assert child.stderr is not None
    assert "controller for" in child.stderr.readline()  # the controller has started
    child.send_signal(sig)
    try:
        _out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:  # not left behind polling the simulator for ever
            child.kill()
            child.communicate()
    assert child.returncode == 0, err
    assert "stopped" in err
    assert "Traceback" not in err
    with Ledger(home) as ledger:
        ledger.lease.acquire()  # released by the stopped controller
    time.sleep(0)


def test_run_sends_the_token_from_the_environment(
    cli: Cli, noise: str, secured: SimulatorThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BATCHLINE_TOKEN", "s3cret")
    (job_id,) = cli("queue", "noise").out.split()
    assert f"{job_id} succeeded" in run_until_idle(cli, secured)


@pytest.mark.parametrize(
    "args",
    [
        ["--max-queued", "0"],
        ["--per-requester", "0"],
        ["--poll-interval", "-1"],
        ["--poll-interval", "nan"],
        ["--poll-interval", "inf"],
        ["--settle", "inf"],
        ["--deep-queue", "0"],
        ["--settle", "0"],
        ["--max-pictures", "0"],
        ["--request-timeout", "0"],
        ["--request-timeout", "nan"],
    ],
)
def test_run_rejects_bad_caps(cli: Cli, args: list[str]) -> None:
    result = cli("run", "--until-idle", *args)
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1


def test_run_rejects_a_bad_server_address(cli: Cli) -> None:
    cli.server = "ftp://nowhere"
    result = cli("run", "--until-idle")
    assert (result.code, result.err.strip()) == (
        2,
        "batchline: not an http(s) server address: 'ftp://nowhere'",
    )


def test_run_sends_the_token_the_app_stored_in_the_keyring(
    cli: Cli, noise: str, secured: SimulatorThread, memory_keyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BATCHLINE_TOKEN", "wrong")
    assert save_token(secured.url, "s3cret")  # as the Settings dialog does
    (job_id,) = cli("queue", "noise").out.split()
    assert f"{job_id} succeeded" in run_until_idle(cli, secured)


def test_run_drives_several_servers_given_comma_separated(
    cli: Cli, noise: str, sim_thread: SimulatorThread, tmp_path: Path
) -> None:
    second = SimulatorThread(
        SimulatorConfig(job_seconds=0.2, cpu_time_scale=0.0, output_dir=tmp_path / "sim2")
    )
    second.start()
    try:
        ids = cli("queue", "noise", "--count", "6").out.split()
        cli.server = f"{sim_thread.url}, {second.url}"
        result = cli("run", "--until-idle", "--poll-interval", "0.05", "--max-queued", "1")
        assert result.code == 0, result.err
        assert f"on {sim_thread.url}, {second.url} " in result.err
        jobs = cli("jobs", "--json").json()
        assert [job["state"] for job in jobs] == ["succeeded"] * 6
        servers = {job["attempts"][-1]["server"] for job in jobs}
        assert servers == {sim_thread.url, second.url}
        assert [job["id"] for job in jobs] == ids
    finally:
        second.stop()


def test_the_same_server_twice_is_one_line(cli: Cli, noise: str) -> None:
    cli.server = "http://127.0.0.1:9/,http://127.0.0.1:9"
    result = cli("run", "--until-idle")
    assert result.code == 2
    assert result.err.strip().startswith("batchline: one or more distinct servers")


@pytest.mark.expect_log("core.controller.controller")
def test_run_stops_with_one_line_when_the_token_is_refused(
    cli: Cli, noise: str, secured: SimulatorThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BATCHLINE_TOKEN", "wrong")
    cli("queue", "noise")
    cli.server = secured.url
    result = cli("run", "--until-idle", "--poll-interval", "0.05")
    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert lines[0].startswith("controller for ")
    assert len(lines) == 2
    assert lines[1].startswith("batchline: ")
    assert "credentials refused" in lines[1]


def test_run_prints_each_local_error_and_its_end(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.run_cmd import LocalErrorPrinter
    from core.controller import ControllerStatus

    printer = LocalErrorPrinter()
    busy = "changes from other processes: ledger /l/ledger.sqlite3: database is locked"
    for local_error in ["", busy, busy, ""]:
        printer(ControllerStatus(local_error=local_error))
    assert capsys.readouterr().err.splitlines() == [
        f"batchline: {busy} (trying again)",
        "batchline: the controller works again",
    ]


def test_a_late_success_is_printed_with_its_pictures(cli: Cli, noise: str, home: Path) -> None:
    from cli.run_cmd import change_line

    (job,) = cli("queue", "noise").out.split()
    with Ledger(home) as ledger:
        ledger.submit_attempt(job, "old", "http://127.0.0.1:8188", "wf")
        ledger.observe_retryable("old", AttemptResult.lost, Reason.timeout)
        ledger.submit_attempt(job, "new", "http://127.0.0.1:8188", "wf")
        succeed_late(ledger, "old", ["/out/late.png"])
        line = change_line(ledger, ledger.transitions(job)[-1])
    assert line.startswith(f"{job} succeeded")
    assert line.endswith(" -> /out/late.png")


_T = TypeVar("_T")


HANG_S = 30.0  # bounds the wait for a process that, broken, would never end: not its speed


def test_serve_says_ready_works_refuses_a_second_and_stops_on_sigterm(
    cli: Cli, home: Path, noise: str, sim_thread: SimulatorThread
) -> None:
    ids = cli("queue", "noise", "--count", "2").out.split()
    server = batchline(home, "--server", sim_thread.url, "serve", "--poll-interval", "0.05")
    try:
        assert server.stdout is not None
        ready = server.stdout.readline()
        assert ready == f"ready: pid {server.pid}, ledger {home}\n"

        second = batchline(home, "--server", sim_thread.url, "serve")
        out, err = second.communicate(timeout=60)
        assert (second.returncode, out) == (1, "")
        assert err == f"batchline: another Batchline controller is running, pid {server.pid}\n"

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the jobs queued before it started are done
            with Ledger(home) as ledger:
                if all(ledger.job(job).state == JobState.succeeded for job in ids):
                    break
            time.sleep(0.1)
        else:
            raise AssertionError("the served jobs did not finish")
    finally:
        server.send_signal(signal.SIGTERM)
        _out, err = server.communicate(timeout=60)
    assert server.returncode == 0, err
    assert "stopped; prompts already sent keep running in ComfyUI" in err
    assert "Traceback" not in err
    with Ledger(home) as ledger:
        ledger.lease.acquire()  # let go by the stopped controller


def test_serve_publishes_its_status_and_stops_when_asked_through_the_ledger(
    home: Path, sim_thread: SimulatorThread
) -> None:
    """A client sees the controller's connection and pid in the ledger alone, and a stop request
    written there ends the process cleanly (its row then says it stopped); ignored, the process
    would run on past the bound on the wait for it."""
    from core.controller.status import Connection

    server = batchline(home, "--server", sim_thread.url, "serve", "--poll-interval", "0.05")
    try:
        assert server.stdout is not None
        server.stdout.readline()
        with Ledger(home) as ledger:
            published = _wait_for(lambda: _connected(ledger), "the connected status")
            assert (published.pid, published.origin) == (server.pid, TERMINAL)
            assert published.status.server == sim_thread.url
            assert ledger.controller_runs.request_stop(published.run_id)
            _out, err = server.communicate(timeout=HANG_S)
            final = read_published(ledger)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 0, err
    assert "stopping: asked to through the ledger" in err
    assert final is not None
    assert final.stopped
    assert final.status.connection == Connection.connected


def test_serve_demo_runs_the_demo_ledger_on_its_own_simulator(cli: Cli, home: Path) -> None:
    """`serve --demo` never touches the artist's ledger: the samples and jobs are the demo's."""
    server = batchline(home, "serve", "--demo", "--demo-job-seconds", "0.05", "--started-by", "app")
    try:
        assert server.stdout is not None
        assert server.stdout.readline() == f"ready: pid {server.pid}, ledger {home / 'demo'}\n"
        with Ledger(home / "demo") as demo:
            name = demo.presets.names()[0]
            batch, _ids = queue_batch(demo, name, BatchSpec(seeds=SeedPlan(count=2)))
            _wait_for(
                lambda: demo.count_by_state(batch.id).get(JobState.succeeded) == 2 or None,
                "the demo jobs",
            )
            published = read_published(demo)
            assert published is not None
            assert published.origin == APP
            assert published.status.server.startswith("http://127.0.0.1:")
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=60)
    with Ledger(home) as ledger:
        assert ledger.latest_seq() == 0
        assert ledger.controller_runs.current() is None


def _connected(ledger: Ledger) -> Published | None:
    from core.controller.status import Connection

    published = read_published(ledger)
    if published and published.status.connection == Connection.connected:
        return published
    return None


def _wait_for(probe: Callable[[], _T | None], what: str, timeout: float = 30.0) -> _T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_serve_stops_with_one_line_when_its_data_folder_is_deleted(
    cli: Cli, home: Path, noise: str, sim_thread: SimulatorThread
) -> None:
    """The ledger file gone (its folder deleted under a running controller) ends the process,
    saying so once, instead of working on for ever on a file nobody can reach (the wait for it
    is bounded)."""
    import shutil

    cli("queue", "noise", "--count", "20")
    server = batchline(home, "--server", sim_thread.url, "serve", "--poll-interval", "0.05")
    try:
        assert server.stdout is not None
        server.stdout.readline()
        with Ledger(home) as ledger:
            _wait_for(lambda: _connected(ledger), "the connected status")
        shutil.rmtree(home)
        _out, err = server.communicate(timeout=HANG_S)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 1, err
    assert "Traceback" not in err
    gone = [line for line in err.splitlines() if "is gone" in line]
    assert gone == [
        f"batchline: the ledger {home / 'ledger.sqlite3'} is gone (deleted or moved away): "
        "nothing more is written to it"
    ]


def test_serve_stops_with_one_line_when_its_ledger_is_replaced(
    cli: Cli, home: Path, noise: str, sim_thread: SimulatorThread, tmp_path: Path
) -> None:
    """A backup restored with ``mv`` under a running serve: it stops, saying so once, and the
    restored file is left as it came: whole, holding what it held."""
    import hashlib
    import os
    from contextlib import closing

    cli("queue", "noise", "--count", "20")
    path, backup = home / "ledger.sqlite3", tmp_path / "backup.sqlite3"
    with closing(sqlite3.connect(path)) as source, closing(sqlite3.connect(backup)) as copy:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode = DELETE")
    digest = hashlib.sha256(backup.read_bytes()).hexdigest()
    server = batchline(home, "--server", sim_thread.url, "serve", "--poll-interval", "0.05")
    try:
        assert server.stdout is not None
        server.stdout.readline()
        with Ledger(home) as ledger:
            _wait_for(lambda: ledger.count_by_state().get(JobState.succeeded), "a finished job")
        os.replace(backup, path)
        _out, err = server.communicate(timeout=HANG_S)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert server.returncode == 1, err
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if "replaced" in line] == [
        f"batchline: the ledger {path} was replaced by another file (a backup restored, a file "
        "sync?): nothing more is written to either; start Batchline again to use the file now "
        "there"
    ]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    with closing(sqlite3.connect(path)) as restored:
        assert restored.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        states = restored.execute("SELECT DISTINCT state FROM job").fetchall()
    assert states == [("pending",)]


def test_run_until_idle_gives_up_on_a_full_output_folder_and_the_next_run_finishes(
    cli: Cli,
    noise: str,
    home: Path,
    tmp_path: Path,
    sim_thread: SimulatorThread,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(run_cmd, "FULL_OUTPUT_PATIENCE_S", 1.0)
    with small_disk(tmp_path / "out", "256k") as out:
        with Ledger(home) as ledger:
            ledger.settings.set("output_dir", str(out))
        filler = fill(out)
        ids = cli("queue", "noise", "--count", "2").out.split()
        cli.server = sim_thread.url
        result = cli("run", "--until-idle", "--poll-interval", "0.05")
        assert "unreachable" not in result.err
        full = f"the output folder {out} is full: pictures wait on the server until there is room"
        assert_gave_up(result, out, full)
        jobs = cli("jobs", "--json").json()
        assert {job["state"] for job in jobs} <= {"queued", "running"}, "waiting, not failed"

        filler.unlink()
        result = cli("run", "--until-idle", "--poll-interval", "0.05")
        assert result.code == 0, result.err
        for job_id in ids:
            (path,) = cli("show", job_id, "--json").json()["outputs"]
            assert Path(path).is_file()
            assert Path(path).is_relative_to(out)


def test_an_output_folder_that_cannot_be_written_waits_like_a_full_one(
    cli: Cli,
    noise: str,
    home: Path,
    tmp_path: Path,
    sim_thread: SimulatorThread,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(run_cmd, "FULL_OUTPUT_PATIENCE_S", 1.0)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    out = blocker / "pictures"  # under a file: no folder can be made there
    with Ledger(home) as ledger:
        ledger.settings.set("output_dir", str(out))
    (job_id,) = cli("queue", "noise").out.split()
    cli.server = sim_thread.url
    result = cli("run", "--until-idle", "--poll-interval", "0.05")
    assert "NotADirectoryError" not in result.err
    assert_gave_up(result, out, f"the output folder {out} cannot be written (Not a directory: ")
    assert cli("show", job_id, "--json").json()["state"] in {"queued", "running"}

    blocker.unlink()  # the artist fixes the folder: the next run saves the picture
    result = cli("run", "--until-idle", "--poll-interval", "0.05")
    assert result.code == 0, result.err
    (path,) = cli("show", job_id, "--json").json()["outputs"]
    assert Path(path).is_file()


def assert_gave_up(result: Result, out: Path, said: str) -> None:
    """`run --until-idle` said once why the output folder took no picture, then gave up."""
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    assert result.err.count(said) == 1, result.err
    assert result.err.splitlines()[-1].startswith(
        f"batchline: the output folder {out} still cannot take pictures after 1 s"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "max queued 3, auto up to 8 for short jobs; per requester 3, auto: the whole queue"),
        (["--max-queued", "3"], "max queued 3; per requester 3)"),
        (["--deep-queue", "6", "--per-requester", "6"], "max queued 3, auto up to 6 for short"),
    ],
)
def test_run_says_where_the_caps_adapt_and_a_cap_given_is_a_ceiling(
    cli: Cli, sim_thread: SimulatorThread, args: list[str], said: str
) -> None:
    """A cap given on the command line is a ceiling, even at the default's value."""
    cli.server = sim_thread.url
    result = cli("run", "--until-idle", *args)
    assert result.code == 0, result.err
    assert said in result.err.splitlines()[0]

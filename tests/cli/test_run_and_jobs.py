"""`batchline run` end to end on the simulator, then `jobs` and `show` on what it did."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from core.comfy.token_store import save_token
from core.job_state import AttemptResult, Reason
from core.ledger import Ledger
from core.ledger.attempt_error import AttemptError, ErrorKind
from core.simulator import SimulatorConfig
from core.simulator.thread import SimulatorThread
from tests.cli.conftest import Cli, batchline
from tests.core.helpers import succeed_late

ISO_Z = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"


@pytest.fixture
def outputs(home: Path, tmp_path: Path) -> Path:
    with Ledger(home) as ledger:
        ledger.settings.set("output_dir", str(tmp_path / "out"))
    return tmp_path / "out"


def run_until_idle(cli: Cli, sim: SimulatorThread) -> str:
    cli.server = sim.url
    result = cli("run", "--until-idle", "--poll-interval", "0.05", "--max-queued", "2")
    assert result.code == 0, result.err
    return result.out


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


def test_job_json_shape(cli: Cli, noise: str, sim_thread: SimulatorThread, outputs: Path) -> None:
    (job_id,) = cli("queue", "noise", "--seeds", "42").out.split()
    run_until_idle(cli, sim_thread)
    job = cli("show", job_id, "--json").json()
    assert {"id", "batch", "preset", "state", "reason", "requester", "params"} <= set(job)
    assert (job["id"], job["preset"], job["state"], job["reason"]) == (
        job_id,
        "noise",
        "succeeded",
        None,
    )
    assert job["params"] == {"2.seed": 42}
    (attempt,) = job["attempts"]
    assert {"n", "prompt_id", "server", "result", "reason", "error"} <= set(attempt)
    assert (attempt["n"], attempt["result"], attempt["server"]) == (1, "succeeded", sim_thread.url)
    for key in ("queued_at", "started_at", "finished_at"):
        assert attempt[key] is not None
        assert __import__("re").match(ISO_Z, attempt[key])
    assert job["outputs"] == attempt["outputs"]
    assert len(job["outputs"]) == 1
    moves = [(t["from"], t["to"], t["attempt"]) for t in job["transitions"]]
    assert moves[-1] == ("running", "succeeded", 1) or moves[-1][1] == "succeeded"
    assert all({"at", "from", "to", "attempt", "cause"} <= set(t) for t in job["transitions"])
    assert cli("jobs", "--json").json() == [{**job, "place": None, "estimated_wait_s": None}]


def test_show_tells_an_oom_failure_with_its_node(
    cli: Cli, noise: str, sim_thread: SimulatorThread, outputs: Path
) -> None:
    sim_thread.fail_next(1, "oom")
    (job_id,) = cli("queue", "noise").out.split()
    printed = run_until_idle(cli, sim_thread)
    assert f"{job_id} failed (out of memory): out of memory in EmptyImage (node 1)" in printed
    story = cli("show", job_id).out
    assert story.startswith(f"{job_id}: failed (out of memory)")
    assert "attempt 1: failed (out of memory)" in story
    assert "error: out of memory in EmptyImage (node 1)\n" in story
    assert "-> failed" in story


def test_jobs_table_and_filters(cli: Cli, noise: str) -> None:
    ids = cli("queue", "noise", "--count", "2").out.split()
    assert cli("cancel", ids[0]).code == 0
    table = cli("jobs").out.splitlines()
    header = ["JOB", "STATE", "REASON", "ATTEMPT", "REQUESTER", "PLACE", "PARAMS"]
    assert table[0].split() == header
    assert len(table) == 3
    at = table[0].index("PLACE")  # a reason's words hold spaces: read the place by column
    places = {row.split()[0]: row[at:].split()[0] for row in table[1:]}
    assert (places[ids[0]], places[ids[1]]) == ("-", "#1"), "no run time to estimate from yet"
    pending = cli("jobs", "--state", "pending", "--json").json()
    assert [job["id"] for job in pending] == [ids[1]]
    assert (pending[0]["place"], pending[0]["estimated_wait_s"]) == (1, None)
    batch = pending[0]["batch"]
    assert len(cli("jobs", "--batch", batch, "--json").json()) == 2
    assert cli("jobs", "--batch", "batch_nope").code == 2
    assert cli("jobs", "--state", "bogus").code == 2
    assert cli("show", "job_nope").err.strip() == "batchline: no job 'job_nope'"


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


def test_show_tells_the_story_of_an_unanswered_submission(cli: Cli, noise: str, home: Path) -> None:
    first, second = cli("queue", "noise", "--count", "2").out.split()
    unanswered = AttemptError(ErrorKind.unknown_outcome, "POST /prompt: no answer in time")
    with Ledger(home) as ledger:
        ledger.submit_attempt(first, "old", "http://127.0.0.1:8188", "wf")
        ledger.note_unknown_outcome("old", Reason.timeout, unanswered)
        error = ledger.attempt("old").error
        ledger.observe_retryable("old", AttemptResult.lost, Reason.timeout, error)
        ledger.submit_attempt(first, "new", "http://127.0.0.1:8188", "wf")
        succeed_late(ledger, "old", ["/out/late.png"])
        ledger.submit_attempt(second, "slow", "http://127.0.0.1:8188", "wf")
        ledger.note_unknown_outcome("slow", Reason.timeout, unanswered)

    late = cli("show", first).out
    assert "attempt 1: succeeded, prompt old" in late
    assert "error: no answer to its submission\n" in late
    assert "It reached the server all the same and succeeded." in late
    assert "attempt 2: cancelled (an earlier try finished first), prompt new" in late
    assert "error: withdrawn\n      Message: attempt 1, answered late, succeeded first" in late
    assert "answered late, succeeded first; attempt 2 withdrawn" in late
    waiting = cli("show", second).out
    assert "attempt 1: submitting (no answer in time), prompt slow" in waiting
    assert "Message: POST /prompt: no answer in time\n" in waiting
    assert "It is being looked up on the server." in waiting


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

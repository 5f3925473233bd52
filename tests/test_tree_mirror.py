"""Tests mirror the tree: a module with logic has its tests in ``test_<module>.py`` at the mirrored
place (``core/controller/dispatch.py`` in ``tests/core/controller/test_dispatch.py``), so the tests
of what you change are where you expect them.

To cover another package, add its source folder and test folder to ``MIRRORED``; a module that
is tested only through others goes in ``TESTED_THROUGH_OTHERS`` with the reason. Stories that
cross modules (``test_stories_*.py``, the crash and chaos runs) may sit beside the mirrored files;
this check asks only that each module's own file is there.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Source folder -> the folder its tests mirror it in (not recursive: a subpackage is its own entry).
MIRRORED = {
    "core/controller": "tests/core/controller",
    "core/comfy": "tests/core/comfy",
    "core/ledger": "tests/core/ledger",
    "core/api": "tests/core/api",
    "core": "tests/core",
    "core/batch": "tests/core/batch",
    "core/pictures": "tests/core/pictures",
    "core/presets": "tests/core/presets",
    "core/placement": "tests/core/placement",
    "core/inputs": "tests/core/inputs",
    "simulator": "tests/simulator",
    "cli": "tests/cli",
    **{
        f"desktop/{view}": f"tests/desktop/{view}"
        for view in (
            "app",
            "window",
            "composer",
            "jobs",
            "sheet",
            "viewer",
            "presets",
            "settings",
            "common",
        )
    },
}

# A module of this many lines or fewer is a name, a constant or a thin adapter: no file of its own.
MIN_LINES = 40

# Package files re-export (core/comfy/__init__.py is its list of names) or start the program.
NOT_MODULES = {"__init__.py", "__main__.py"}

# Modules with logic whose tests are another module's, by design. Each says where and why.
TESTED_THROUGH_OTHERS = {
    # The window's view of a controller in another process: tested where the window drives it,
    # against a real `batchline serve` (tests/desktop/test_command_doors.py).
    "core/controller/client.py": "tests/desktop/test_command_doors.py",
    # What one server's dispatcher, reconciler and link share between ticks: observable only
    # through a tick (a restart, ids kept or ignored) in test_dispatch, test_reconcile and
    # test_server_link.
    "core/controller/server_state.py": "tests/core/controller/test_reconcile.py",
    # The parsers' type checks: every parser's refusal of a bad shape is in test_responses,
    # test_events and test_failures, named by the route and the key.
    "core/comfy/shapes.py": "tests/core/comfy/test_responses.py",
    # Who acts (the artist or an API requester): the ownership rules are tested where they are
    # enforced, the presets store (test_stores, test_database) and the API's routes.
    "core/ledger/owners.py": "tests/core/ledger/test_database.py",
    # Immutable records built from rows: read back in test_ledger (the same as the feed) and
    # test_transitions.
    "core/ledger/records.py": "tests/core/ledger/test_ledger.py",
    # Tables and migrations: every schema migrated in order in test_database.
    "core/ledger/schema.py": "tests/core/ledger/test_database.py",
    # SQLite errors given their meaning: through the handle (test_handle) and the command
    # line's one line (tests/cli/test_main.py), on real damaged, locked and full ledgers.
    "core/ledger/sqlite_errors.py": "tests/core/ledger/test_handle.py",
    # The ledger file replaced or removed under a running process: test_handle, and the
    # controller's stop in tests/core/controller/test_supervision.py.
    "core/ledger/watch.py": "tests/core/controller/test_supervision.py",
    # The API's one error shape: every refusal in test_routes and test_bodies.
    "core/api/errors.py": "tests/core/api/test_routes.py",
    # The batch's records (frozen dataclasses, no logic of their own): built and read in
    # every test of the composition (test_compose, test_seeds, test_values).
    "core/batch/spec.py": "tests/core/batch/test_compose.py",
    # Starting the program (a display check, then the session on a qasync loop): the
    # display check in test_display (`batchline gui` without a display), the session it runs
    # in test_app_integration.
    "desktop/app/app.py": "tests/desktop/app/test_display.py",
    # The question on closing with jobs left: answered Keep and Stop, with what each does to
    # the controller, in test_background.
    "desktop/app/close_dialog.py": "tests/desktop/app/test_background.py",
    # A Protocol (the controller as the window sees it): its two implementations are driven
    # by the window in tests/desktop/test_command_doors.py.
    "desktop/common/controller_port.py": "tests/desktop/test_command_doors.py",
    # Background tasks kept alive and their failures shown: a failing session task said with
    # its reason in test_background.
    "desktop/common/tasks.py": "tests/desktop/app/test_background.py",
    # The jobs table's view (selection, progress bars, value columns placed after Batch):
    # through the window in test_job_value_columns and test_main_window.
    "desktop/jobs/job_table_view.py": "tests/desktop/jobs/test_job_value_columns.py",
    # The notice floating over a widget: every notice of the window moves nothing, in
    # test_notices_move_nothing.
    "desktop/window/toast.py": "tests/desktop/window/test_notices_move_nothing.py",
    # The simulator's WebSocket side: its event sequences are checked against the recorded
    # transcripts (test_contract), the token on the socket in test_modes.
    "simulator/sockets.py": "tests/simulator/test_contract.py",
}


def modules_with_logic() -> list[str]:
    return sorted(
        str(path.relative_to(ROOT))
        for source in MIRRORED
        for path in (ROOT / source).glob("*.py")
        if path.name not in NOT_MODULES and len(path.read_text().splitlines()) > MIN_LINES
    )


def mirrored_test_file(module: str) -> Path:
    source, name = module.rsplit("/", 1)
    return ROOT / MIRRORED[source] / f"test_{name}"


def test_every_module_with_logic_has_its_test_file_at_the_mirrored_place() -> None:
    missing = [
        f"{module}: no {mirrored_test_file(module).relative_to(ROOT)}"
        for module in modules_with_logic()
        if module not in TESTED_THROUGH_OTHERS and not mirrored_test_file(module).exists()
    ]
    assert missing == []


def test_every_module_tested_through_others_needs_it_and_names_a_test_file() -> None:
    """The allow-list does not go stale: each entry is a mirrored module with logic and no file
    of its own, and names a test file that exists (the lead may move it; this says where)."""
    stale = [
        module
        for module, tested_in in TESTED_THROUGH_OTHERS.items()
        if module not in modules_with_logic()
        or mirrored_test_file(module).exists()
        or not (ROOT / tested_in).exists()
    ]
    assert stale == []


def test_the_mirror_sees_the_modules_it_is_about() -> None:
    """A wrong folder in MIRRORED would make the first check pass on nothing."""
    assert "core/controller/dispatch.py" in modules_with_logic()
    assert all(
        (ROOT / source).is_dir() and (ROOT / tests).is_dir() for source, tests in MIRRORED.items()
    )

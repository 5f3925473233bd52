"""The command line imports the desktop package as code, but not Qt: commands other than `gui`
start without loading it, and work where Qt's system libraries are missing."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.cli.conftest import REPO

CHECK = """
import json, sys
from cli.main import build_parser
build_parser().parse_args(["queue", "noise"])
qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "qasync"))
print(json.dumps({"qt": qt, "window": "desktop.app.app" in sys.modules}))
"""


def test_the_command_line_loads_no_qt_until_the_window_opens() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == {"qt": [], "window": True}

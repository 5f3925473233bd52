"""The extension's script (resources/comfyui-extension/batchline-send/js/batchline.js), tested
with node's own test runner (batchline.test.mjs beside this file) against a stub of ComfyUI's
frontend app object and a real local HTTP server. Node is required: CI installs it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_the_extension_script_passes_its_node_tests() -> None:
    node = shutil.which("node")
    assert node, "node is not installed (apt-get install nodejs): the extension is untested"
    run = subprocess.run(
        [node, "--test", *sorted(str(p) for p in HERE.glob("*.test.mjs"))],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "# fail 0" in run.stdout
    assert "# pass 0" not in run.stdout, "node ran no test"

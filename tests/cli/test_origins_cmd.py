"""`batchline origins list|add|remove`: the pages allowed to send workflows to the API."""

from __future__ import annotations

from pathlib import Path

from core.api.comfyui_send import allowed_origins
from core.ledger import Ledger
from tests.cli.conftest import Cli


def test_an_origin_is_added_listed_and_removed(cli: Cli, home: Path) -> None:
    assert cli("origins", "add", "https://Comfy.example:443/").out == (
        "allowed: https://comfy.example\n"
    )
    with Ledger(home) as ledger:
        assert allowed_origins(ledger) == {"http://127.0.0.1:8188", "https://comfy.example"}
    listed = cli("origins", "list").out.splitlines()
    assert listed[:2] == ["http://127.0.0.1:8188\ta server", "https://comfy.example\tadded"]
    assert cli("origins", "remove", "https://comfy.example").code == 0
    gone = cli("origins", "remove", "https://comfy.example")
    assert gone.code == 2
    bad = cli("origins", "add", "comfy.example")
    assert (bad.code, "not a web page's origin" in bad.err) == (2, True)

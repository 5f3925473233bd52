"""`batchline comfyui-extension install|path`."""

from __future__ import annotations

from pathlib import Path

from core.comfyui_extension import FOLDER_NAME, source_folder
from tests.cli.conftest import Cli


def test_install_says_to_restart_and_refuses_a_changed_copy(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "custom_nodes").mkdir()
    (tmp_path / "main.py").write_text("")
    done = cli("comfyui-extension", "install", str(tmp_path))
    assert done.code == 0, done.err
    target = tmp_path / "custom_nodes" / FOLDER_NAME
    assert (
        done.out == f"Installed the Batchline extension in {target}. Restart ComfyUI to load it.\n"
    )
    (target / "README.md").write_text("my notes")
    refused = cli("comfyui-extension", "install", str(tmp_path))
    assert refused.code == 2
    assert refused.err.startswith(f"batchline: {target} was changed since Batchline installed it")
    assert (target / "README.md").read_text() == "my notes"
    forced = cli("comfyui-extension", "install", "--force", str(tmp_path))
    assert forced.code == 0, forced.err
    assert "kept as batchline-send.1.disabled" in forced.out


def test_not_comfyui_is_one_line(cli: Cli, tmp_path: Path) -> None:
    refused = cli("comfyui-extension", "install", str(tmp_path))
    assert (refused.code, refused.err) == (
        2,
        f"batchline: {tmp_path} does not look like ComfyUI (no main.py and custom_nodes folder "
        "in it)\n",
    )


def test_path_prints_the_folder(cli: Cli) -> None:
    done = cli("comfyui-extension", "path")
    assert done.out == f"{source_folder()}\n"
    assert Path(done.out.strip()).is_dir()

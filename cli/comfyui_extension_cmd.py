"""`batchline comfyui-extension install|path`: the "Send to Batchline" extension for ComfyUI."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.comfyui_extension import FOLDER_NAME, install, source_folder

if TYPE_CHECKING:
    import argparse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "comfyui-extension", help="install ComfyUI's 'Send to Batchline' extension"
    )
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)

    put = verbs.add_parser("install", help="copy the extension into COMFYUI_DIR/custom_nodes")
    put.add_argument("comfyui_dir", metavar="COMFYUI_DIR", type=Path, help="ComfyUI's folder")
    put.add_argument(
        "--force",
        action="store_true",
        help="replace a changed copy (it is set aside as NAME.N.disabled, not deleted)",
    )
    put.add_argument(
        "--name", default=FOLDER_NAME, help=f"the folder's name (default {FOLDER_NAME})"
    )
    put.set_defaults(func=install_extension)

    where = verbs.add_parser("path", help="print the extension's folder, for a manual copy")
    where.set_defaults(func=print_path)


def install_extension(args: argparse.Namespace) -> int:
    print(install(args.comfyui_dir, force=args.force, name=args.name).sentence())
    return 0


def print_path(args: argparse.Namespace) -> int:
    print(source_folder())
    return 0

"""PyInstaller entry point of the bundle: the `batchline` command (no command: the window)."""

import sys

from cli.main import main

if __name__ == "__main__":
    sys.exit(main())

"""`python -m cli`: the `batchline` command (the app starts its background controller so)."""

import sys

from cli.main import main

sys.exit(main())

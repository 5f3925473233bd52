"""The `batchline` command line."""

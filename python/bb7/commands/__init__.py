"""Subcommands of the `bb7` command line."""

"""Corpus scoring for `bb7 eval-edits` and `bb7 eval-responses`: development tools, kept out
of the runtime path (nothing the editor or the other commands import comes from here)."""

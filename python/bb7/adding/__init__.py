"""Adding many files at once: what the user names (paths, globs, directories, sections) made
into the files to add, the project's `.bb7/ignore`, and the guard against secrets."""

from __future__ import annotations

from typing import Literal

# A glob or directory that names too many files or none; a file that looks like a secret.
AddingProblemKind = Literal["too_many", "no_match", "secret"]

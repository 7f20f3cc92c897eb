"""Adding many files at once: what the user names (paths, globs, directories, sections) made
into the files to add, when to ask first (many files, a secret), and the project's files for
the picker (`project_files`). What may be read at all (`.bb7/ignore`, secrets, symlinks) is
`bb7.files.guard`'s. The kinds of its refusals are `bb7.refusal.AddingProblemKind`."""

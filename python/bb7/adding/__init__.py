"""Adding many files at once: what the user names (paths, globs, directories, sections) made
into the files to add, the project's `.bb7/ignore`, the guard against secrets, and the project's
files for the picker (`project_files`). The kinds of its refusals are
`bb7.refusal.AddingProblemKind`."""

"""Files on disk as bb7 reads and writes them: project paths and the paths bb7 refuses
(`paths`), reading a text file and writing one atomically with its line endings, BOM and mode
(`fsio`), the ids the model sees for a file's content (`fileid`), and what bb7 may read to show
a model (`guard`, over the project's `.bb7/ignore` in `ignore` and the secret guard in
`secrets`). Each module imports only what it needs: `bb7 status` loads `paths` without
`fsio`."""

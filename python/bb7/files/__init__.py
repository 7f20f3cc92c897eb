"""Files on disk as bb7 reads and writes them: project paths and the paths bb7 refuses
(`paths`), reading a text file and writing one atomically with its line endings, BOM and mode
(`fsio`), and the ids the model sees for a file's content (`fileid`). Each module imports only
what it needs: `bb7 status` loads `paths` without `fsio`."""

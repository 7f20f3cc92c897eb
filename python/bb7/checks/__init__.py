"""The project's own checks (tests, linters, type checkers) run on a throwaway copy of the
chat's pending change, before anything touches the project: declared in `.bb7/checks.toml`
(`config`), suggested from what the project has (`suggest`), run in a copy (`throwaway`, with
`jail` where the kernel allows a user namespace, else a copy that `watch` keeps cheap to bring
up to date) one process group each (`process`), the outcomes kept with the chat (`verdict`)
and their `file:line:col` lines found (`locations`).
`run` puts these together for the CLI and the editor host.
"""

# Where a project declares its checks (a constant apart: `bb7 status` looks for the file
# without importing the TOML parser).
CHECKS_FILE = ".bb7/checks.toml"

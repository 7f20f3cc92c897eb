"""Type-check the plugin's Lua against its LuaCATS annotations (`make lint`).

Runs emmylua_ls (the EmmyLua analyzer, the engine of `emmylua_check`) over the repository as a
language server, asks it once for the whole workspace's diagnostics (LSP `workspace/diagnostic`)
and prints those of lua/, plugin/ and scripts/ as `path:line:col: code: message`. Settings are
in .emmyrc.json at the root; Neovim's own annotations come from the runtime given with
`--runtime` (as `$VIMRUNTIME`). Exit 1 when there is any diagnostic, 2 when the check could not
run.

    python scripts/lua_typecheck.py --server PATH/emmylua_ls --runtime PATH/share/nvim/runtime
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("lua/", "plugin/", "scripts/")
TIMEOUT = 120.0


class Server:
    """A language server on stdio: requests answered in order, its own requests refused."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        stdin.flush()

    def receive(self) -> dict[str, Any]:
        stdout: IO[bytes] = self.proc.stdout  # type: ignore[assignment]
        length = 0
        while True:
            line = stdout.readline()
            if not line:
                raise RuntimeError("emmylua_ls stopped")
            if not line.strip():
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        message: dict[str, Any] = json.loads(stdout.read(length))
        return message

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error'].get('message')}")
                return message.get("result")
            if "method" in message and "id" in message:  # the server asks something: no
                self.send({"id": message["id"], "result": None})

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def diagnostics(server_path: str, runtime: str) -> list[str]:
    env = {**os.environ, "VIMRUNTIME": runtime}
    server = Server([server_path, "--log-level", "error"], env)
    timer = threading.Timer(TIMEOUT, server.close)
    timer.start()
    try:
        root = ROOT.as_uri()
        server.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root,
                "workspaceFolders": [{"uri": root, "name": ROOT.name}],
                "capabilities": {"workspace": {"diagnostic": {}}},
            },
        )
        server.send({"method": "initialized", "params": {}})
        report = server.request("workspace/diagnostic", {"previousResultIds": []})
    finally:
        timer.cancel()
        server.close()
    found: list[str] = []
    for item in report.get("items", []):
        uri: str = item["uri"]
        if not uri.startswith(root + "/"):
            continue
        path = uri[len(root) + 1 :]
        if not path.startswith(CHECKED):
            continue
        for d in item.get("items", []):
            start = d["range"]["start"]
            found.append(
                f"{path}:{start['line'] + 1}:{start['character'] + 1}: "
                f"{d.get('code', '')}: {' '.join(d['message'].split())}"
            )
    return sorted(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="the emmylua_ls binary")
    parser.add_argument("--runtime", required=True, help="Neovim's runtime directory")
    args = parser.parse_args()
    if not os.access(args.server, os.X_OK):
        print(f"lua_typecheck: no emmylua_ls at {args.server} (make install)", file=sys.stderr)
        return 2
    if not Path(args.runtime, "lua", "vim").is_dir():
        print(f"lua_typecheck: {args.runtime} is no Neovim runtime", file=sys.stderr)
        return 2
    try:
        found = diagnostics(args.server, args.runtime)
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"lua_typecheck: the check could not run: {exc}", file=sys.stderr)
        return 2
    for line in found:
        print(line)
    print(f"lua_typecheck: {len(found)} problem(s)" if found else "lua_typecheck: clean")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

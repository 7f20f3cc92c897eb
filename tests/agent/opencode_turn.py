"""One `bb7 agent opencode` turn against the scripted OpenAI-compatible server, for
test_agent_opencode.py: run as its own process (inside a loopback-only network namespace when
the test can make one, so "no network" holds and OpenCode's attempts to reach the internet
fail at once instead of timing out).

    python opencode_turn.py PROJECT WORKDIR

OpenCode is told (its `opencode.json`, outside the project) to use the server as its only
provider and to ask before an edit; the server answers its title request aside and scripts one
`edit` tool call then a text. `bb7 agent --yes opencode MESSAGE` runs in PROJECT; its exit
code, output and the requests the server saw are printed as one JSON line.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bb7.cli import main
from llm_server import LLMServer, finish, stream, text_chunk, tool_call

OLD = 'print("hello")'
NEW = 'print("hello, world")'


def _aside(body: Any) -> dict[str, Any] | None:
    """The title request (it offers no tools) is answered off the script."""
    if isinstance(body, dict) and not body.get("tools"):
        return stream(text_chunk("Greeting"), finish())
    return None


def _call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    steps = tool_call(name, arguments)
    # Ids unique across the turn: OpenCode keys its tool calls by them.
    steps[0]["data"]["choices"][0]["delta"]["tool_calls"][0]["id"] = call_id
    return stream(*steps, finish("tool_calls"))


def run(project: Path, work: Path) -> dict[str, Any]:
    edit = {"filePath": str(project / "hello.py"), "oldString": OLD, "newString": NEW}
    script = [
        _call("edit", edit, "call_edit_1"),
        stream(text_chunk("hello.py greets the world."), finish()),
    ]
    with LLMServer(script, aside=_aside) as server:
        config = {
            "$schema": "https://opencode.ai/config.json",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"edit": "ask"},
            "enabled_providers": ["fake"],
            "model": "fake/fake-model",
            "small_model": "fake/fake-model",
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Fake",
                    "options": {"baseURL": server.base_url, "apiKey": "sk-fake"},
                    "models": {"fake-model": {"name": "Fake model"}},
                }
            },
        }
        (work / "opencode.json").write_text(json.dumps(config))
        home = work / "home"
        os.environ.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / "config"),
            XDG_DATA_HOME=str(home / "data"),
            XDG_CACHE_HOME=str(home / "cache"),
            XDG_STATE_HOME=str(home / "state"),
            OPENCODE_CONFIG=str(work / "opencode.json"),
            OPENCODE_DISABLE_AUTOUPDATE="1",
            OPENCODE_DISABLE_MODELS_FETCH="1",
            OPENCODE_DISABLE_LSP_DOWNLOAD="1",
            OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
            OPENCODE_DISABLE_SHARE="1",
        )
        os.chdir(project)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["agent", "--yes", "opencode", "Greet the world in hello.py"])
        requests = len(server.chat_requests())
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue(), "requests": requests}


if __name__ == "__main__":
    if os.environ.get("BB7_NETNS"):  # inside `unshare -n`: only loopback, which starts down
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    print(json.dumps(run(Path(sys.argv[1]), Path(sys.argv[2]))))

"""A scripted ACP agent for tests: speaks the Agent Client Protocol over stdio as a real agent
does (newline-delimited JSON-RPC 2.0), and plays a script instead of asking a model.

    python tests/acp_agent.py --script script.json --log log.jsonl

The script is `{"turns": [[step, ...], ...]}`: each `session/prompt` plays the next turn's
steps, then ends it with `end_turn`. Optional: `"protocol_version"` (answered to
`initialize`, default 1) and `"initialize"`: `"hang"` (never answered) or `"crash"`.
Steps, each a one-key object (paths relative to the agent's cwd are sent absolute):
  {"say": text}  {"think": text}        agent message / thought chunks
  {"read": path, "line": n, "limit": n} fs/read_text_file; the answer goes to the log
  {"write": path, "content": text}      fs/write_text_file; the answer goes to the log
  {"ask": title, "kind": kind}          session/request_permission (once, always, reject);
                                        the outcome goes to the log
  {"tool": id, "title": t, "kind": k, "status": s, "diff": [path, old, new]}
                                        tool_call (then {"tool_update": id, ...} updates it)
  {"plan": [[content, status], ...]}    the plan
  {"disk": path, "content": text}       writes the file itself; "content": null deletes it
  {"crash": status}                     exits at once
  {"wait_cancel": true}                 waits for session/cancel, then ends `cancelled`
  {"raw": text}                         writes `text` as a line of its own (malformed)
  {"big": n}                            writes a line of n bytes
  {"stop": reason}                      ends the turn with that stop reason
  {"late": [step, ...]}                 plays these steps after the turn's answer is sent
Every message it receives, and every answer to its own requests, is a JSON line in the log.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

OUT = sys.stdout.buffer
IN = sys.stdin.buffer


class Agent:
    def __init__(self, script: dict[str, Any], log: Path) -> None:
        self.script = script
        self.log = log
        self.turns = list(script.get("turns", []))
        self.next_id = 100
        self.queue: list[dict[str, Any]] = []
        self.session = ""
        self.cancelled = False
        self.late: list[dict[str, Any]] = []

    def note(self, entry: dict[str, Any]) -> None:
        with self.log.open("a") as out:
            out.write(json.dumps(entry) + "\n")

    def send(self, message: dict[str, Any]) -> None:
        OUT.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        OUT.flush()

    def receive(self) -> dict[str, Any] | None:
        if self.queue:
            return self.queue.pop(0)
        line = IN.readline()
        if not line:
            return None
        message: dict[str, Any] = json.loads(line)
        self.note({"received": message})
        if message.get("method") == "session/cancel":
            self.cancelled = True
        return message

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A request to the client; other messages meanwhile are kept for later."""
        self.next_id += 1
        ask = self.next_id
        self.send({"id": ask, "method": method, "params": params})
        kept: list[dict[str, Any]] = []
        while True:
            message = self.receive()
            if message is None:
                sys.exit(0)
            if message.get("id") == ask and "method" not in message:
                self.queue = kept + self.queue
                return message
            if message.get("method") != "session/cancel":
                kept.append(message)

    def update(self, update: dict[str, Any]) -> None:
        self.send(
            {"method": "session/update", "params": {"sessionId": self.session, "update": update}}
        )

    def run(self) -> None:
        while True:
            message = self.receive()
            if message is None:
                return
            method = message.get("method")
            if method == "initialize":
                mode = self.script.get("initialize")
                if mode == "hang":
                    continue
                if mode == "crash":
                    sys.stderr.write("scripted agent: crashing at initialize\n")
                    sys.exit(3)
                version = self.script.get("protocol_version", 1)
                self.send(
                    {
                        "id": message["id"],
                        "result": {
                            "protocolVersion": version,
                            "agentCapabilities": {"loadSession": False},
                            "agentInfo": {"name": "scripted", "version": "1.0"},
                            "authMethods": [],
                        },
                    }
                )
            elif method == "session/new":
                self.session = "sess_1"
                self.send({"id": message["id"], "result": {"sessionId": self.session}})
            elif method == "session/prompt":
                self.cancelled = False
                steps = self.turns.pop(0) if self.turns else [{"say": "(no script left)"}]
                reason = self.play(steps)
                self.send({"id": message["id"], "result": {"stopReason": reason}})
                late, self.late = self.late, []
                self.play(late)
            elif "id" in message and method is not None:
                self.send({"id": message["id"], "error": {"code": -32601, "message": "no"}})

    def path(self, raw: str) -> str:
        return raw if os.path.isabs(raw) else os.path.join(os.getcwd(), raw)

    def play(self, steps: list[dict[str, Any]]) -> str:
        for step in steps:
            if "say" in step:
                self.update({"sessionUpdate": "agent_message_chunk", "content": _text(step["say"])})
            elif "think" in step:
                self.update(
                    {"sessionUpdate": "agent_thought_chunk", "content": _text(step["think"])}
                )
            elif "read" in step:
                params = {"sessionId": self.session, "path": self.path(step["read"])}
                params.update({k: step[k] for k in ("line", "limit") if k in step})
                got = self.call("fs/read_text_file", params)
                self.note({"read": step["read"], "answer": got})
            elif "write" in step:
                params = {
                    "sessionId": self.session,
                    "path": self.path(step["write"]),
                    "content": step["content"],
                }
                got = self.call("fs/write_text_file", params)
                self.note({"write": step["write"], "answer": got})
            elif "ask" in step:
                got = self.call(
                    "session/request_permission",
                    {
                        "sessionId": self.session,
                        "toolCall": {
                            "toolCallId": step.get("id", "ask"),
                            "title": step["ask"],
                            "kind": step.get("kind", "edit"),
                            "status": "pending",
                        },
                        "options": [
                            {"optionId": "once", "name": "Allow once", "kind": "allow_once"},
                            {"optionId": "always", "name": "Always", "kind": "allow_always"},
                            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
                        ],
                    },
                )
                self.note({"asked": step["ask"], "answer": got})
                if got.get("result", {}).get("outcome", {}).get("outcome") == "cancelled":
                    return "cancelled"
            elif "tool" in step or "tool_update" in step:
                self.tool(step)
            elif "plan" in step:
                entries = [
                    {"content": c, "status": s, "priority": "medium"} for c, s in step["plan"]
                ]
                self.update({"sessionUpdate": "plan", "entries": entries})
            elif "disk" in step:
                target = Path(self.path(step["disk"]))
                if step.get("content") is None:
                    target.unlink()
                else:
                    target.write_text(step["content"])
            elif "crash" in step:
                sys.stderr.write("scripted agent: crashing as told\n")
                sys.stderr.flush()
                os._exit(int(step["crash"]))
            elif "wait_cancel" in step:
                while not self.cancelled:
                    message = self.receive()
                    if message is None:
                        sys.exit(0)
                return "cancelled"
            elif "raw" in step:
                OUT.write(step["raw"].encode() + b"\n")
                OUT.flush()
            elif "big" in step:
                OUT.write(b"x" * int(step["big"]) + b"\n")
                OUT.flush()
            elif "sleep" in step:
                time.sleep(float(step["sleep"]))
            elif "late" in step:
                self.late = list(step["late"])
            elif "stop" in step:
                return str(step["stop"])
        return "end_turn"

    def tool(self, step: dict[str, Any]) -> None:
        first = "tool" in step
        update: dict[str, Any] = {
            "sessionUpdate": "tool_call" if first else "tool_call_update",
            "toolCallId": step["tool"] if first else step["tool_update"],
        }
        for key in ("title", "kind", "status"):
            if key in step:
                update[key] = step[key]
        if "diff" in step:
            path, old, new = step["diff"]
            update["content"] = [
                {"type": "diff", "path": self.path(path), "oldText": old, "newText": new}
            ]
        self.update(update)


def _text(text: str) -> dict[str, str]:
    return {"type": "text", "text": text}


def command(directory: Path, script: dict[str, Any]) -> tuple[list[str], Path]:
    """The argv that runs this agent on `script` (written into `directory`), and its log."""
    directory.mkdir(parents=True, exist_ok=True)
    script_file, log = directory / "acp-script.json", directory / "acp-log.jsonl"
    script_file.write_text(json.dumps(script))
    log.touch()
    argv = [sys.executable, str(Path(__file__).resolve()), "--script", str(script_file)]
    return [*argv, "--log", str(log)], log


def logged(log: Path, key: str) -> list[dict[str, Any]]:
    """The log's entries that have `key` (`read`, `write`, `asked`, `received`)."""
    entries = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return [e for e in entries if key in e]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", type=Path, required=True)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()
    Agent(json.loads(args.script.read_text()), args.log).run()


if __name__ == "__main__":
    main()

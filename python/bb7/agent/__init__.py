"""bb7 as the editor an agent works through, over the Agent Client Protocol (ACP): the agent
runs as a child process, and its file changes land in bb7's sandbox like a model's.

Modules: `schema` (the ACP messages, as msgspec Structs), `rpc` (JSON-RPC over the agent's
stdio), `client` (initialize, a session, prompt, cancel), `agents` (the agents known by name),
`files` (`fs/*` into the chat's pending outputs), `disk` (catching what an agent writes to disk
itself), `events` (what a turn reports) and `session` (one chat's agent and its turns). Nothing
here is imported by the host's start or by another `bb7` command: `:BB7Agent` and `bb7 agent`
import it on first use.
"""

"""Prompt assembly: a pure function from a chat's state to the messages sent to the model.

Input is a `PromptInput` (filled by the state layer: context files, pending outputs, history,
retry context; and by the formats layer: the tool prompt and tool schemas). Output is a
`Prompt`: a system message, ONE structured user message, the tools to offer, and a token
estimate per part. The user message is ordered from the most to the least stable part so
provider prompt caches hit: read-only files, history, latest message, retry context, writable
files. Reading files, calling the model and storing results happen elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import msgspec

from bb7.fileid import file_id
from bb7.formats.modes import is_text_mode
from bb7.llm.instructions import Instructions
from bb7.llm.prompt_format import (
    EVENT,
    FILE_CLOSE,
    FILE_OPEN,
    GLOBAL_CHAT_NOTE,
    LATEST_CLOSE,
    LATEST_OPEN,
    MSG_CLOSE,
    MSG_OPEN,
    RETRY_CLOSE,
    RETRY_OPEN,
    SECTION_HISTORY,
    SECTION_LATEST,
    SECTION_READONLY,
    SECTION_RETRY,
    SECTION_WRITABLE,
    SYSTEM_PROMPT,
    EventAction,
)
from bb7.llm.wire import (
    CacheControl,
    ChatRequest,
    ContentPart,
    Message,
    ReasoningEffort,
    ToolSpec,
)
from bb7.text.tokens import estimate_tokens

EditFormat = Literal["none", "tools", "text_blocks"]
FileMode = Literal["rw", "ro"]
FileStatus = Literal["original", "pending_output", "added_output"]

# Room assumed for the answer when the model does not state its max completion tokens.
DEFAULT_ANSWER_RESERVE = 4096
# The estimate's error (see tokens.py); a prompt this close to the limit gets a warning.
ESTIMATE_MARGIN = 0.15


class ContextFile(msgspec.Struct, frozen=True):
    """A file (or a section of one) in the chat's context, with its snapshot content."""

    path: str
    content: str
    readonly: bool = False
    # A section: lines start_line..end_line (1-based, inclusive) of the file; always read-only.
    start_line: int | None = None
    end_line: int | None = None
    # Outside the project; always read-only.
    external: bool = False
    # The stored version id; computed from path and content when not given.
    file_id: str | None = None


class PendingOutput(msgspec.Struct, frozen=True):
    """The model's not yet applied version of a file (new when no context file has its path)."""

    path: str
    content: str
    file_id: str | None = None
    # A new file rather than a change; when not given: no full context file has this path.
    added: bool | None = None


class HistoryMessage(msgspec.Struct, frozen=True, tag="message", tag_field="type"):
    role: Literal["user", "assistant", "system"]
    text: str
    kind: Literal["text", "reasoning"] = "text"


class HistoryEvent(msgspec.Struct, frozen=True, tag="event", tag_field="type"):
    """Something that happened to a file between messages (see prompt_format.EVENT_MEANINGS)."""

    action: EventAction
    path: str
    file_id: str | None = None
    prev_file_id: str | None = None
    start_line: int | None = None
    end_line: int | None = None


HistoryEntry = HistoryMessage | HistoryEvent


class PromptInput(msgspec.Struct, frozen=True):
    user_text: str
    files: list[ContextFile] = []
    outputs: list[PendingOutput] = []
    history: list[HistoryEntry] = []
    # Rendered by the formats layer (`retry_context(result)`) after a failed apply.
    retry_context: str | None = None
    # The built-in prompt, or the user's override of it.
    system_prompt: str = SYSTEM_PROMPT
    # How to edit in the chosen format: the diff_mode's tool prompt, or the edit-block prompt.
    tool_prompt: str = ""
    # Tool schemas offered when edit_format is "tools" (formats layer).
    tools: list[ToolSpec] = []
    instructions: Instructions = Instructions()
    edit_format: EditFormat = "tools"
    # A chat without a project: no tools, no project instructions, every file read-only.
    global_chat: bool = False
    # Mark the stable prefix (read-only files + history) as a cache breakpoint, for providers
    # that cache only explicitly (Anthropic models through OpenRouter).
    cache_breakpoint: bool = False


class FileBlock(msgspec.Struct, frozen=True):
    """One `@file` block as the model sees it."""

    id: str
    path: str
    mode: FileMode
    status: FileStatus
    start_line: int | None = None
    end_line: int | None = None
    external: bool = False


class PromptPart(msgspec.Struct, frozen=True):
    """Estimated tokens of one part; `path` is set for file parts."""

    name: Literal[
        "system_prompt",
        "instructions",
        "tool_prompt",
        "tools",
        "file",
        "history",
        "latest",
        "retry",
    ]
    tokens: int
    path: str | None = None


class Prompt(msgspec.Struct, frozen=True):
    system: str
    user: list[ContentPart]
    tools: list[ToolSpec]
    edit_format: EditFormat
    files: list[FileBlock]
    parts: list[PromptPart]
    total_tokens: int

    def messages(self) -> list[Message]:
        user: str | list[ContentPart] = self.user
        if len(self.user) == 1 and self.user[0].cache_control is None:
            user = self.user[0].text  # the plain form every server accepts
        return [Message("system", self.system), Message("user", user)]


class ContextCheck(msgspec.Struct, frozen=True):
    level: Literal["ok", "near", "over"]
    message: str | None = None


def choose_edit_format(
    diff_mode: str, supports_tools: bool | None, *, global_chat: bool = False
) -> EditFormat:
    """How the model may change files: not at all (global chats), tool calls, or text blocks.

    Text blocks when diff_mode is a text mode (`bb7.formats.modes`), or when the models list
    says the model has no tool support; an unknown capability (servers that list only ids)
    gets tools.
    """
    if global_chat:
        return "none"
    if is_text_mode(diff_mode) or supports_tools is False:
        return "text_blocks"
    return "tools"


def assemble_prompt(inp: PromptInput) -> Prompt:
    """The system message, the structured user message and per-part token estimates."""
    edit_format: EditFormat = "none" if inp.global_chat else inp.edit_format
    parts: list[PromptPart] = []

    system_parts = [inp.system_prompt.rstrip("\n") + "\n"]
    parts.append(PromptPart("system_prompt", estimate_tokens(system_parts[0])))
    instructions = _instructions(inp.instructions, include_project=not inp.global_chat)
    if instructions:
        system_parts.append(instructions)
        parts.append(PromptPart("instructions", estimate_tokens(instructions)))
    if inp.global_chat:
        system_parts.append(GLOBAL_CHAT_NOTE)
    elif edit_format != "none" and inp.tool_prompt.strip():
        tool_prompt = inp.tool_prompt.rstrip("\n") + "\n"
        system_parts.append(tool_prompt)
        parts.append(PromptPart("tool_prompt", estimate_tokens(tool_prompt)))
    tools = list(inp.tools) if edit_format == "tools" else []
    if tools:
        schema_tokens = estimate_tokens(msgspec.json.encode(tools).decode())
        parts.append(PromptPart("tools", schema_tokens))

    readonly, writable = _file_blocks(inp)
    stable: list[str] = []
    if readonly:
        stable.append(SECTION_READONLY + "\n\n")
        for block, text in readonly:
            stable.append(text)
            parts.append(PromptPart("file", estimate_tokens(text), block.path))
    if inp.history:
        history = _history(inp.history)
        stable.append(SECTION_HISTORY + "\n\n" + history)
        parts.append(PromptPart("history", estimate_tokens(history)))

    changing: list[str] = []
    all_blocks = [block for block, _ in readonly] + [block for block, _ in writable]
    latest = _latest(all_blocks, inp.user_text)
    changing.append(SECTION_LATEST + "\n\n" + latest)
    parts.append(PromptPart("latest", estimate_tokens(latest)))
    if inp.retry_context and inp.retry_context.strip():
        retry = f"{RETRY_OPEN}\n{_with_newline(inp.retry_context)}{RETRY_CLOSE}\n\n"
        changing.append(SECTION_RETRY + "\n\n" + retry)
        parts.append(PromptPart("retry", estimate_tokens(retry)))
    if writable:
        changing.append(SECTION_WRITABLE + "\n\n")
        for block, text in writable:
            changing.append(text)
            parts.append(PromptPart("file", estimate_tokens(text), block.path))

    user = _user_parts(stable, changing, inp.cache_breakpoint)
    return Prompt(
        system="\n".join(system_parts),
        user=user,
        tools=tools,
        edit_format=edit_format,
        files=all_blocks,
        parts=parts,
        total_tokens=sum(part.tokens for part in parts),
    )


def check_context(
    total_tokens: int, context_length: int | None, max_completion_tokens: int | None = None
) -> ContextCheck:
    """Warn before sending a prompt that will not fit the model's context window."""
    if not context_length:
        return ContextCheck("ok")
    reserve = min(max_completion_tokens or DEFAULT_ANSWER_RESERVE, context_length // 4)
    if total_tokens > context_length:
        return ContextCheck(
            "over",
            f"The prompt is about {total_tokens:,} tokens, more than the model's context of "
            f"{context_length:,}. Remove files or sections, or start a new chat.",
        )
    if total_tokens * (1 + ESTIMATE_MARGIN) + reserve > context_length:
        return ContextCheck(
            "near",
            f"The prompt is about {total_tokens:,} tokens of the model's {context_length:,}; "
            "with room for the answer it may not fit (the estimate is within about 15%).",
        )
    return ContextCheck("ok")


def chat_request(
    prompt: Prompt,
    model: str,
    *,
    reasoning_effort: ReasoningEffort | None = None,
    provider: dict[str, object] | None = None,
    prompt_cache_key: str | None = None,
) -> ChatRequest:
    """The request for an assembled prompt; tools only in tool mode."""
    return ChatRequest(
        model=model,
        messages=prompt.messages(),
        tools=prompt.tools,
        reasoning_effort=reasoning_effort,
        provider=dict(provider) if provider else None,
        prompt_cache_key=prompt_cache_key,
    )


# ---- rendering -------------------------------------------------------------------------------


def _instructions(instructions: Instructions, *, include_project: bool) -> str:
    out = []
    if instructions.user and instructions.user.strip():
        out.append(
            f'<user-instructions source="{instructions.user_source}">\n'
            f"{_with_newline(instructions.user)}</user-instructions>\n"
        )
    if include_project and instructions.project and instructions.project.strip():
        out.append(
            f'<project-instructions source="{instructions.project_source}">\n'
            f"{_with_newline(instructions.project)}</project-instructions>\n"
        )
    return "".join(out)


def _file_blocks(
    inp: PromptInput,
) -> tuple[list[tuple[FileBlock, str]], list[tuple[FileBlock, str]]]:
    """Read-only and writable blocks, each sorted by path (then lines, then id)."""
    output_paths = {output.path for output in inp.outputs}
    full_paths = {f.path for f in inp.files if f.start_line is None}
    readonly: list[tuple[FileBlock, str]] = []
    writable: list[tuple[FileBlock, str]] = []
    for entry in inp.files:
        is_section = entry.start_line is not None
        writable_entry = not (
            inp.global_chat or entry.readonly or entry.external or is_section
        ) and (entry.path not in output_paths)
        block = FileBlock(
            id=entry.file_id or file_id(entry.path, entry.content),
            path=entry.path,
            mode="rw" if writable_entry else "ro",
            status="original",
            start_line=entry.start_line,
            end_line=entry.end_line if is_section else None,
            external=entry.external,
        )
        (writable if writable_entry else readonly).append((block, _render(block, entry.content)))
    for output in inp.outputs:
        block = FileBlock(
            id=output.file_id or file_id(output.path, output.content),
            path=output.path,
            mode="ro" if inp.global_chat else "rw",
            status="added_output" if _added(output, full_paths) else "pending_output",
        )
        rendered = (block, _render(block, output.content))
        (readonly if inp.global_chat else writable).append(rendered)
    readonly.sort(key=lambda item: (item[0].path, item[0].start_line or 0, item[0].id))
    writable.sort(key=lambda item: (item[0].path, item[0].id))
    return readonly, writable


def _added(output: PendingOutput, full_paths: set[str]) -> bool:
    return output.added if output.added is not None else output.path not in full_paths


def _attributes(block: FileBlock) -> str:
    text = f"id={block.id} path={block.path} mode={block.mode} status={block.status}"
    if block.start_line is not None:
        text += f" lines={block.start_line}-{block.end_line}"
    if block.external:
        text += " external"
    return text


def _render(block: FileBlock, content: str) -> str:
    return f"{FILE_OPEN} {_attributes(block)}\n{_with_newline(content)}{FILE_CLOSE}\n\n"


def _history(entries: Iterable[HistoryEntry]) -> str:
    out: list[str] = []
    for n, entry in enumerate(entries, start=1):
        if isinstance(entry, HistoryMessage):
            kind = " kind=reasoning" if entry.kind == "reasoning" else ""
            body = _with_newline(entry.text)
            out.append(f"{MSG_OPEN} n={n} role={entry.role}{kind}\n{body}{MSG_CLOSE}\n")
        else:
            line = f"{EVENT} n={n} action={entry.action} path={entry.path}"
            if entry.file_id:
                line += f" file_id={entry.file_id}"
            if entry.prev_file_id:
                line += f" prev_file_id={entry.prev_file_id}"
            if entry.start_line is not None:
                line += f" lines={entry.start_line}-{entry.end_line}"
            out.append(line + "\n")
    return "".join(out) + "\n"


def _latest(blocks: list[FileBlock], user_text: str) -> str:
    lines = [LATEST_OPEN]
    if blocks:
        lines.append("Files:")
        for block in blocks:
            summary = f"- {block.id} {block.path} {block.mode} {block.status}"
            if block.start_line is not None:
                summary += f" lines={block.start_line}-{block.end_line}"
            lines.append(summary)
    lines.append(user_text.rstrip("\n"))
    lines.append(LATEST_CLOSE)
    return "\n".join(lines) + "\n\n"


def _user_parts(stable: list[str], changing: list[str], breakpoint: bool) -> list[ContentPart]:
    if breakpoint and stable:
        return [
            ContentPart("".join(stable), cache_control=CacheControl()),
            ContentPart("".join(changing)),
        ]
    return [ContentPart("".join(stable + changing))]


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"

"""Prompt assembly: a pure function from a chat's state to the messages sent to the model.

Input is a `PromptInput` (filled by the state layer: context files, pending outputs, history,
retry context; and by the formats layer: the tool prompt and tool schemas). Output is a
`Prompt`: a system message, ONE structured user message, the tools to offer, and a token
estimate per part. Reading files, calling the model and storing results happen elsewhere.

The prompt grows at its end, so that provider caches hit: the user message is the history, in
order, then the latest message. The history shows each file where the model first saw it, as a
whole block, and every later change as a diff after it (a `HistoryTurn` marks where a user
message was sent with which files); a file's block is sent again when the diffs since it
outgrow a quarter of it. The request of the next turn therefore starts with this one, byte for
byte, except its last part (the latest message). The user message is cut into one part per turn
so cache breakpoints can sit at turn ends.

To teach the model a new kind of history entry: add a Struct to `HistoryEntry`, a branch to
`_History.entry`, and its markers to `markers` (whose system prompt explains them).
"""

from __future__ import annotations

import json
from typing import Literal

import msgspec

from bb7.files.fileid import file_id
from bb7.files.images import data_url_tokens
from bb7.formats.file_requests import INSTRUCTIONS as ASK_FOR_FILES
from bb7.formats.modes import is_text_mode
from bb7.prompt.instructions import Instructions
from bb7.prompt.markers import (
    CHECKS_CLOSE,
    CHECKS_OPEN,
    DIFF_CLOSE,
    DIFF_OPEN,
    EVENT,
    FILE_CLOSE,
    FILE_OPEN,
    GLOBAL_CHAT_NOTE,
    IMAGE_CLOSE,
    IMAGE_OPEN,
    LATEST_CLOSE,
    LATEST_OPEN,
    MSG_CLOSE,
    MSG_OPEN,
    RETRY_CLOSE,
    RETRY_OPEN,
    SECTION_HISTORY,
    SECTION_LATEST,
    SECTION_RETRY,
    SYSTEM_PROMPT,
    DiffAuthor,
    EventAction,
)
from bb7.provider.wire import (
    CacheControl,
    ChatRequest,
    ContentPart,
    ImagePart,
    Message,
    Part,
    ReasoningEffort,
    ToolSpec,
)
from bb7.text.diff import hunks
from bb7.text.tokens import estimate_tokens

EditFormat = Literal["none", "tools", "text_blocks"]
FileMode = Literal["rw", "ro"]
FileStatus = Literal["original", "pending_output", "added_output"]
# How a changed file reaches the model: as a diff against the version it saw, or whole again.
FollowEdits = Literal["diff", "full", "off"]

# Room assumed for the answer when the model does not state its max completion tokens.
DEFAULT_ANSWER_RESERVE = 4096
# The estimate's error (see tokens.py); a prompt this close to the limit gets a warning.
ESTIMATE_MARGIN = 0.15
# A file's block is sent again once the diffs after it would exceed this share of its size.
RESEND_SHARE = 0.25


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
    # An image: `content` is its data URL, shown to the model as an image part.
    image: bool = False


class PendingOutput(msgspec.Struct, frozen=True):
    """The model's not yet applied version of a file (new when no context file has its path)."""

    path: str
    content: str
    file_id: str | None = None
    # A new file rather than a change; when not given: no full context file has this path.
    added: bool | None = None
    # Edits of the model's to this file that matched several places and wait for the user's
    # choice of one: not in `content` yet.
    choosing: int = 0


class HistoryMessage(msgspec.Struct, frozen=True, tag="message", tag_field="type"):
    role: Literal["user", "assistant", "system"]
    text: str
    kind: Literal["text", "reasoning"] = "text"
    # The stored message it comes from (0: not stored): its part of the prompt is counted apart.
    message: int = 0


class HistoryEvent(msgspec.Struct, frozen=True, tag="event", tag_field="type"):
    """Something that happened to a file between messages (see markers.EVENT_MEANINGS)."""

    action: EventAction
    path: str
    file_id: str | None = None
    prev_file_id: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    # A rejected hunk's reason (one line); an amended hunk's `-` proposed / `+` taken lines.
    reason: str | None = None
    diff: str | None = None
    # assistant_wrote: the text the model wrote, shown after the event as its diff.
    content: str | None = None
    # The stored message carrying the event (0: not stored); counted with that message.
    message: int = 0


class HistoryTurn(msgspec.Struct, frozen=True, tag="turn", tag_field="type"):
    """The files a user message was sent with (before that message in the history): there the
    prompt shows what the model has not seen of them, as blocks or diffs."""

    files: list[ContextFile] = []
    outputs: list[PendingOutput] = []


class HistoryCheck(msgspec.Struct, frozen=True):
    """One check of a `HistoryChecks`: its verdict, and for a failing one why and the end of
    its output."""

    name: str
    state: Literal["passed", "failed", "timed_out", "error"]
    exit_code: int | None = None
    message: str = ""
    output: str = ""


class HistoryChecks(msgspec.Struct, frozen=True, tag="checks", tag_field="type"):
    """The project's checks, run on the pending outputs (of `path` alone when given)."""

    verdict: str
    failed: int
    checks: list[HistoryCheck]
    path: str | None = None
    # The stored message carrying the run (0: not stored): its part is counted apart.
    message: int = 0


HistoryEntry = HistoryMessage | HistoryEvent | HistoryTurn | HistoryChecks


class PromptInput(msgspec.Struct, frozen=True):
    user_text: str
    # The files now: they follow the history as its last turn.
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
    # Mark cache breakpoints (system, first turn, last two turns), for providers that cache
    # only where asked (Anthropic models, Gemini through OpenRouter).
    cache_marks: bool = False
    # A changed file as a diff against the version the model saw ('diff'), or whole ('full',
    # and 'off', where only the user's explicit updates change it).
    follow_edits: FollowEdits = "diff"


class FileBlock(msgspec.Struct, frozen=True):
    """One file of the chat as the model sees it now (a line of the latest message's list)."""

    id: str
    path: str
    mode: FileMode
    status: FileStatus
    start_line: int | None = None
    end_line: int | None = None
    external: bool = False
    image: bool = False
    choosing: int = 0  # the model's edits to it waiting for the user's choice of place


class PromptPart(msgspec.Struct, frozen=True):
    """Estimated tokens of one part; `path` is set for file blocks and diffs (with the lines of
    a section); `message` for a history part: one stored message with its events (what the
    model wrote after them included)."""

    name: Literal[
        "system_prompt",
        "instructions",
        "tool_prompt",
        "tools",
        "file",
        "diff",
        "history",
        "latest",
        "retry",
    ]
    tokens: int
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    message: int = 0


class Prompt(msgspec.Struct, frozen=True):
    system: str
    # One part per turn of the history (and one per image in it, between its texts), then the
    # latest message (and retry context).
    user: list[ContentPart | ImagePart]
    tools: list[ToolSpec]
    edit_format: EditFormat
    files: list[FileBlock]
    parts: list[PromptPart]
    total_tokens: int
    system_cached: bool = False

    def messages(self) -> list[Message]:
        system: str | list[Part] = self.system
        if self.system_cached:
            system = [ContentPart(self.system, cache_control=CacheControl())]
        user: str | list[Part] = list(self.user)
        if all(isinstance(p, ContentPart) and p.cache_control is None for p in self.user):
            # The plain form every server takes.
            user = "".join(p.text for p in self.user if isinstance(p, ContentPart))
        return [Message("system", system), Message("user", user)]


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
        if edit_format == "text_blocks":  # tool modes ask through the request_files tool
            tool_prompt += "\n" + ASK_FOR_FILES
        system_parts.append(tool_prompt)
        parts.append(PromptPart("tool_prompt", estimate_tokens(tool_prompt)))
    tools = list(inp.tools) if edit_format == "tools" else []
    if tools:
        schema_tokens = estimate_tokens(msgspec.json.encode(tools).decode())
        parts.append(PromptPart("tools", schema_tokens))

    history = _History(diffs=inp.follow_edits != "full", global_chat=inp.global_chat)
    for entry in inp.history:
        history.entry(entry)
    current = history.turn(inp.files, inp.outputs)
    turns = history.close()
    parts.extend(history.parts)

    latest = _latest(current, inp.user_text)
    last = [SECTION_LATEST + "\n\n" + latest]
    parts.append(PromptPart("latest", estimate_tokens(latest)))
    if inp.retry_context and inp.retry_context.strip():
        retry = f"{RETRY_OPEN}\n{_with_newline(inp.retry_context)}{RETRY_CLOSE}\n\n"
        last.append(SECTION_RETRY + "\n\n" + retry)
        parts.append(PromptPart("retry", estimate_tokens(retry)))

    marked = _cache_marks(len(turns)) if inp.cache_marks else set()
    user: list[ContentPart | ImagePart] = []
    for i, turn in enumerate(turns):
        user += _turn_parts(turn, mark=i in marked)
    user.append(ContentPart("".join(last)))
    return Prompt(
        system="\n".join(system_parts),
        user=user,
        tools=tools,
        edit_format=edit_format,
        files=current,
        parts=parts,
        total_tokens=sum(part.tokens for part in parts),
        system_cached=inp.cache_marks,
    )


def _turn_parts(turn: list[str | ImagePart], *, mark: bool) -> list[ContentPart | ImagePart]:
    """A history part as message parts: its texts joined between its images, the cache mark on
    its last text (a part always ends in text: an image is followed by its closing marker)."""
    out: list[ContentPart | ImagePart] = []
    texts: list[str] = []
    for piece in turn:
        if isinstance(piece, str):
            texts.append(piece)
            continue
        if texts:
            out.append(ContentPart("".join(texts)))
            texts = []
        out.append(piece)
    out.append(ContentPart("".join(texts), cache_control=CacheControl() if mark else None))
    return out


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
            # What to do in a line an 80-column editor shows whole; the figures after it (the
            # editor keeps them in its log).
            "context nearly full: drop files or start a new chat\n"
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
    max_tokens: int | None = None,
    adaptive_thinking: bool = False,
) -> ChatRequest:
    """The request for an assembled prompt; tools only in tool mode."""
    return ChatRequest(
        model=model,
        messages=prompt.messages(),
        tools=prompt.tools,
        reasoning_effort=reasoning_effort,
        max_tokens=max_tokens,
        provider=dict(provider) if provider else None,
        prompt_cache_key=prompt_cache_key,
        adaptive_thinking=adaptive_thinking,
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


def _cache_marks(turns: int) -> set[int]:
    """Which history parts carry a breakpoint (the system message has one too): the first turn
    (the context as first shared), and the last two (the history up to the previous turn,
    written by the last request, and up to this one, read by the next)."""
    return {i for i in (0, turns - 2, turns - 1) if i >= 0}


_Key = tuple[str, int | None, int | None]


class _Seen(msgspec.Struct):
    """What the model was shown of one file: its version, and the bytes of its last block and
    of the diffs sent after it."""

    file_id: str
    content: str
    block: int
    diffs: int = 0


class _History:
    """The history as rendered, entry by entry, remembering what the model saw of each file.

    Rendering depends only on the entries before, so a longer history renders to the same text
    with more after it (the prompt's prefix stays byte-identical). Its parts, in order: a file's
    block or diff shown at a turn, and one part per stored message (its text, its events and
    what the model wrote in them), so each message's cost can be read apart.
    """

    def __init__(self, *, diffs: bool, global_chat: bool) -> None:
        self.diffs = diffs
        self.global_chat = global_chat
        self.seen: dict[_Key, _Seen] = {}
        self.n = 0
        self.turns: list[list[str | ImagePart]] = []
        self.out: list[str | ImagePart] = []
        self.parts: list[PromptPart] = []
        # The message part being written: (message id, tokens so far).
        self.open: tuple[int, int] | None = None
        # Who changed each path since the last turn, from the events (for a diff's `by=`).
        self.changed_by: dict[str, DiffAuthor] = {}

    def entry(self, entry: HistoryEntry) -> None:
        if isinstance(entry, HistoryTurn):
            self.turn(entry.files, entry.outputs)
            return
        self.n += 1
        if isinstance(entry, HistoryMessage):
            kind = " kind=reasoning" if entry.kind == "reasoning" else ""
            body = _with_newline(entry.text)
            text = f"{MSG_OPEN} n={self.n} role={entry.role}{kind}\n{body}{MSG_CLOSE}\n"
            self._emit(text, entry.message)
        elif isinstance(entry, HistoryChecks):
            self._emit(_render_checks(self.n, entry), entry.message)
        else:
            line = f"{EVENT} n={self.n} action={entry.action} path={entry.path}"
            if entry.file_id:
                line += f" file_id={entry.file_id}"
            if entry.prev_file_id:
                line += f" prev_file_id={entry.prev_file_id}"
            if entry.start_line is not None:
                line += f" lines={entry.start_line}-{entry.end_line}"
            if entry.reason:
                line += f" reason={json.dumps(entry.reason, ensure_ascii=False)}"
            self._emit(line + "\n" + (entry.diff or ""), entry.message)
            self.changed_by[entry.path] = (
                "assistant" if entry.action == "assistant_wrote" else "user"
            )
            if entry.action == "assistant_wrote" and entry.content is not None:
                # The model's change by itself, so a later diff holds only the user's.
                written = FileBlock(
                    id=_id(entry.path, entry.content, entry.file_id),
                    path=entry.path,
                    mode="rw",
                    status="pending_output",
                )
                self._show(written, entry.content, "assistant", entry.message)
                del self.changed_by[entry.path]

    def turn(self, files: list[ContextFile], outputs: list[PendingOutput]) -> list[FileBlock]:
        """Show what changed in `files` since the model last saw them; ends a history part."""
        current = _current_files(files, outputs, global_chat=self.global_chat)
        keys = set()
        for block, content in current:
            keys.add((block.path, block.start_line, block.end_line))
            # Unannounced changes of the model's version are its own (a failed answer's partial).
            by = self.changed_by.get(block.path) or (
                "user" if block.status == "original" else "assistant"
            )
            self._show(block, content, by)
        for key in set(self.seen) - keys:
            del self.seen[key]
        self.changed_by.clear()
        self._end_part()
        return [block for block, _ in current]

    def close(self) -> list[list[str | ImagePart]]:
        """The history's parts (the last one ended by the current turn), the first titled."""
        self._end_part()
        self._close_message()
        if self.turns:
            self.turns[0].insert(0, SECTION_HISTORY + "\n\n")
        return self.turns

    def _show(
        self, block: FileBlock, content: str, by: DiffAuthor, message: int | None = None
    ) -> None:
        """Show a file the model has not seen in this version: a diff against the version it
        saw, or the whole file (part of `message` when a message's event shows it)."""
        key = (block.path, block.start_line, block.end_line)
        seen = self.seen.get(key)
        if seen is not None and seen.file_id == block.id:
            return
        if block.image:  # shown whole again when it changed: an image has no diff
            self.n += 1
            self._image(block, content)
            self.seen[key] = _Seen(block.id, "", 0)
            return
        if seen is not None and self.diffs and self._diff(block, content, seen, by, message):
            return
        self.n += 1
        text = _render_block(self.n, block, content)
        self._emit(
            text, message, PromptPart("file", 0, block.path, block.start_line, block.end_line)
        )
        self.seen[key] = _Seen(block.id, content, len(text))

    def _diff(
        self, block: FileBlock, content: str, seen: _Seen, by: DiffAuthor, message: int | None
    ) -> bool:
        """Show the change as a diff, unless the diffs since the block would outgrow it."""
        changes = hunks(seen.content, content)
        head = f"{DIFF_OPEN} n={self.n + 1} path={block.path}{_lines(block)}"
        text = f"{head} file_id={block.id} prev_file_id={seen.file_id} by={by}\n"
        text += f"{changes}{DIFF_CLOSE}\n\n"
        if seen.diffs + len(text) > seen.block * RESEND_SHARE:
            return False
        self.n += 1
        self._emit(
            text, message, PromptPart("diff", 0, block.path, block.start_line, block.end_line)
        )
        seen.file_id, seen.content, seen.diffs = block.id, content, seen.diffs + len(text)
        return True

    def _image(self, block: FileBlock, content: str) -> None:
        """An image between its markers, counted as the provider counts it (not its base64)."""
        head = f"{IMAGE_OPEN} n={self.n} id={block.id} path={block.path}\n"
        tail = f"{IMAGE_CLOSE}\n\n"
        media, _, data = content.removeprefix("data:").partition(";base64,")
        self._close_message()
        self.out += [head, ImagePart(media, data), tail]
        tokens = estimate_tokens(head + tail) + data_url_tokens(content)
        self.parts.append(PromptPart("file", tokens, block.path))

    def _emit(self, text: str, message: int | None, part: PromptPart | None = None) -> None:
        """Send `text`, counted in `message`'s part, or else as its own `part`."""
        self.out.append(text)
        tokens = estimate_tokens(text)
        if message is not None and self.open is not None and self.open[0] == message:
            self.open = (message, self.open[1] + tokens)
            return
        self._close_message()
        if message is not None:
            self.open = (message, tokens)
        elif part is not None:
            self.parts.append(msgspec.structs.replace(part, tokens=tokens))

    def _close_message(self) -> None:
        if self.open is not None:
            self.parts.append(PromptPart("history", self.open[1], message=self.open[0]))
            self.open = None

    def _end_part(self) -> None:
        if self.out:
            self.turns.append(self.out)
            self.out = []


def _current_files(
    files: list[ContextFile], outputs: list[PendingOutput], *, global_chat: bool
) -> list[tuple[FileBlock, str]]:
    """Each file as the model edits it now, sorted by path (then lines): a pending output
    stands in for the snapshot of its path; a new file the model wrote is its own entry."""
    by_output = {output.path: output for output in outputs}
    full_paths = {f.path for f in files if f.start_line is None}
    current: list[tuple[FileBlock, str]] = []
    for entry in files:
        is_section = entry.start_line is not None
        output = None if is_section or entry.image else by_output.pop(entry.path, None)
        writable = output is not None or not (
            global_chat or entry.readonly or entry.external or is_section
        )
        content = entry.content if output is None else output.content
        block = FileBlock(
            id=_id(output.path, output.content, output.file_id)
            if output is not None
            else _id(entry.path, entry.content, entry.file_id),
            path=entry.path,
            mode="rw" if writable and not global_chat else "ro",
            status="original" if output is None else _output_status(output, full_paths),
            start_line=entry.start_line,
            end_line=entry.end_line if is_section else None,
            external=entry.external,
            image=entry.image,
            choosing=0 if output is None else output.choosing,
        )
        current.append((block, content))
    for output in by_output.values():
        block = FileBlock(
            id=_id(output.path, output.content, output.file_id),
            path=output.path,
            mode="ro" if global_chat else "rw",
            status=_output_status(output, full_paths),
            choosing=output.choosing,
        )
        current.append((block, output.content))
    current.sort(key=lambda item: (item[0].path, item[0].start_line or 0, item[0].id))
    return current


def _id(path: str, content: str, given: str | None) -> str:
    return given or file_id(path, content)


def _output_status(output: PendingOutput, full_paths: set[str]) -> FileStatus:
    added = output.added if output.added is not None else output.path not in full_paths
    return "added_output" if added else "pending_output"


def _lines(block: FileBlock) -> str:
    return "" if block.start_line is None else f" lines={block.start_line}-{block.end_line}"


def _render_block(n: int, block: FileBlock, content: str) -> str:
    head = f"{FILE_OPEN} n={n} id={block.id} path={block.path}{_lines(block)}"
    if block.external:
        head += " external"
    return f"{head}\n{_with_newline(content)}{FILE_CLOSE}\n\n"


def _render_checks(n: int, entry: HistoryChecks) -> str:
    path = f" path={entry.path}" if entry.path else ""
    head = f"{CHECKS_OPEN} n={n} verdict={entry.verdict} failed={entry.failed}"
    lines = [f"{head} of={len(entry.checks)}{path}", *check_lines(entry.checks)]
    return "\n".join(lines) + f"\n{CHECKS_CLOSE}\n"


def check_lines(checks: list[HistoryCheck]) -> list[str]:
    """Each check's verdict on a line, the end of a failing one's output indented below it."""
    lines: list[str] = []
    words = {"passed": "passed", "failed": "failed", "timed_out": "timed out"}
    for check in checks:
        said = words.get(check.state, "could not run")
        if check.state == "failed" and check.exit_code is not None:
            said += f" (exit {check.exit_code})"
        if check.message and check.state != "failed":
            said += f": {check.message}"
        lines.append(f"- {check.name}: {said}")
        lines.extend("  " + line for line in check.output.splitlines())
    return lines


def _latest(blocks: list[FileBlock], user_text: str) -> str:
    lines = [LATEST_OPEN]
    if blocks:
        lines.append("Files:")
        for block in blocks:
            kind = " image" if block.image else ""
            if block.choosing:
                kind += f" choosing={block.choosing}"
            lines.append(
                f"- {block.id} {block.path} {block.mode} {block.status}{_lines(block)}{kind}"
            )
    lines.append(user_text.rstrip("\n"))
    lines.append(LATEST_CLOSE)
    return "\n".join(lines) + "\n\n"


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"

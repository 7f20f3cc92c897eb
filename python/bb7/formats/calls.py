"""A response's calls as operations: every tool call and text block, decoded for `diff_mode`.

A call is one tool call or one text block; it holds the file operations it asks for, or why it
cannot be read (unknown tool, invalid arguments, malformed block). Calls are numbered from 1 in
response order: text blocks first (as the parser numbers them), then tool calls. Not for
applying anything (`bb7.formats.apply`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from bb7.formats.arguments import ArgumentError, parse_arguments
from bb7.formats.blocks import BlockError
from bb7.formats.edit_blocks import EditBlock
from bb7.formats.modes import DIFF_MODES, DiffMode, is_text_mode
from bb7.formats.response import Response, ToolCall
from bb7.formats.schemas import (
    EDIT_SCHEMAS,
    AnchoredChange,
    Edit,
    EditFileAnchored,
    EditFileMulti,
    WriteFile,
)
from bb7.formats.search_replace import SearchReplaceBlock
from bb7.formats.stream import TextItem, parse_text


class WriteOp(msgspec.Struct, frozen=True):
    """Create or fully rewrite `path`."""

    path: str
    content: str


class ReplaceOp(msgspec.Struct, frozen=True, kw_only=True):
    """Replace `old` by `new` in `path` through the edit engine."""

    path: str
    old: str
    new: str
    file_id: str = ""
    replace_all: bool = False
    start_line: int | None = None
    whole_lines: bool = False  # text blocks: old and new are whole lines


class AnchoredOp(msgspec.Struct, frozen=True, kw_only=True):
    """Replace anchored regions of `path`, all located in the version the call starts from."""

    path: str
    changes: list[AnchoredChange]
    file_id: str = ""


Op = WriteOp | ReplaceOp | AnchoredOp


class CallError(msgspec.Struct, frozen=True):
    """Why a call cannot be read: `invalid` arguments, `unknown_tool`, `malformed` block."""

    kind: str
    message: str
    path: str = ""


class Call(msgspec.Struct, frozen=True, kw_only=True):
    """One tool call or text block. `kind`: the tool name, or `search_replace_block` /
    `edit_block`; `raw`: the call as the model sent it (for retry messages)."""

    block: int | None
    kind: str
    raw: str
    ops: tuple[Op, ...] = ()
    error: CallError | None = None
    line: int | None = None
    repairs: tuple[str, ...] = ()


def read_calls(response: Response, mode: DiffMode) -> list[Call]:
    """Every call of `response` in order: text blocks (and block errors), then tool calls."""
    calls = _text_calls(response.text) if response.text else []
    offset = max((c.block or 0 for c in calls), default=0)
    for number, tool_call in enumerate(response.tool_calls, offset + 1):
        calls.append(_tool_call(number, tool_call, mode))
    return calls


def op_paths(calls: list[Call]) -> list[str]:
    """Every path the calls name, as sent, first occurrence first."""
    paths = [op.path for call in calls for op in call.ops]
    return list(dict.fromkeys(paths))


# --- text blocks -----------------------------------------------------------------------------


def _text_calls(text: str) -> list[Call]:
    lines = text.split("\n")
    return [_text_call(item, lines) for item in parse_text(text)]


def _text_call(item: TextItem, lines: list[str]) -> Call:
    if isinstance(item, BlockError):
        first = item.block_line or item.line
        return Call(
            block=item.index,
            kind="text",
            raw=_excerpt(lines, first, item.line),
            error=CallError(item.kind, item.message, item.path),
            line=first,
        )
    raw = _excerpt(lines, item.line, item.end_line)
    if isinstance(item, SearchReplaceBlock):
        kind = "search_replace_block"
        op = ReplaceOp(
            path=item.path,
            old=item.search,
            new=item.replace,
            start_line=item.start_line,
            whole_lines=True,
        )
    else:
        kind = "edit_block"
        op = _edit_block_op(item)
    if not item.path:
        missing = CallError(
            "malformed",
            f"The block at line {item.line} has no file path: put the path alone on the line "
            "before the block's first marker.",
        )
        return Call(block=item.index, kind=kind, raw=raw, error=missing, line=item.line)
    return Call(block=item.index, kind=kind, raw=f"{item.path}\n{raw}", ops=(op,), line=item.line)


def _edit_block_op(block: EditBlock) -> ReplaceOp:
    # Anchor + old must match one place and becomes anchor + new: the engine does exactly this
    # with the whole sections, and reports ambiguity and near misses the same way as for tools.
    return ReplaceOp(path=block.path, old=block.edit, new=block.repl, whole_lines=True)


def _excerpt(lines: list[str], first: int, last: int) -> str:
    return "\n".join(lines[first - 1 : last])


# --- tool calls ------------------------------------------------------------------------------


def _tool_call(number: int, call: ToolCall, mode: DiffMode) -> Call:
    raw = msgspec.json.encode({"name": call.name, "arguments": _readable(call.arguments)}).decode()
    parsed = parse_arguments(call.arguments)
    if isinstance(parsed, ArgumentError):
        error = CallError(parsed.kind, f"{call.name or 'tool call'}: {parsed.message}")
        return Call(block=number, kind=call.name, raw=raw, error=error)
    found = _decode(call.name, parsed.value, mode)
    if isinstance(found, CallError):
        return Call(block=number, kind=call.name, raw=raw, error=found, repairs=parsed.repairs)
    return Call(block=number, kind=call.name, raw=raw, ops=found, repairs=parsed.repairs)


def _readable(arguments: Any) -> Any:
    """Arguments as the model should see them again: JSON text decoded (not escaped twice),
    text that is not JSON as it was."""
    if not isinstance(arguments, str):
        return arguments
    try:
        return msgspec.json.decode(arguments)
    except (msgspec.DecodeError, RecursionError):  # RecursionError: nested past msgspec's bound
        return arguments


def _decode(name: str, value: dict[str, Any], mode: DiffMode) -> tuple[Op, ...] | CallError:
    path = value.get("path") if isinstance(value.get("path"), str) else ""
    if is_text_mode(mode):
        return CallError(
            "unknown_tool",
            f"No tools are offered in diff_mode {mode!r}: write the change as edit blocks in "
            "your answer, as the instructions describe.",
            str(path),
        )
    if name == "request_files":
        return ()  # asks the user for files (`bb7.formats.file_requests`); changes nothing
    if name == "write_file":
        write = _convert(value, WriteFile, name, mode)
        if isinstance(write, CallError):
            return write
        return (WriteOp(write.path, write.content),)
    if name != "edit_file":
        return CallError(
            "unknown_tool",
            f"There is no tool {name!r}. The tools are: {_offered(mode)}.",
            str(path),
        )
    schema = EDIT_SCHEMAS.get(mode)
    if schema is None:
        return CallError(
            "unknown_tool",
            "edit_file is not offered in diff_mode 'off': send the complete file with "
            "write_file instead.",
            str(path),
        )
    args = _convert(value, schema, name, mode)
    if isinstance(args, CallError):
        return args
    if isinstance(args, EditFileMulti):
        return tuple(_replace(edit) for edit in args.edits)
    if isinstance(args, Edit):
        return (_replace(args),)
    assert isinstance(args, EditFileAnchored)
    return (AnchoredOp(path=args.path, changes=args.changes, file_id=args.file_id),)


def _replace(edit: Edit) -> ReplaceOp:
    return ReplaceOp(
        path=edit.path,
        old=edit.old_string,
        new=edit.new_string,
        file_id=edit.file_id,
        replace_all=edit.replace_all,
    )


def _convert(value: dict[str, Any], schema: type[Any], name: str, mode: DiffMode) -> Any:
    try:
        return msgspec.convert(value, schema, strict=False)
    except msgspec.ValidationError as exc:
        other = [
            m
            for m in DIFF_MODES
            if m != mode and m in EDIT_SCHEMAS and _fits(value, EDIT_SCHEMAS[m])
        ]
        hint = (
            f" They fit the {other[0]!r} schema, but this chat's diff_mode is {mode!r}: use "
            "the edit_file schema you were given."
            if name == "edit_file" and other
            else ""
        )
        path = value.get("path")
        return CallError(
            "invalid",
            f"{name} arguments do not fit its schema: {exc}.{hint} Send the call again with "
            "every required field.",
            path if isinstance(path, str) else "",
        )


def _fits(value: dict[str, Any], schema: type[Any]) -> bool:
    try:
        msgspec.convert(value, schema, strict=False)
    except msgspec.ValidationError:
        return False
    return True


def _offered(mode: DiffMode) -> str:
    return "write_file, request_files" if mode == "off" else "write_file, edit_file, request_files"

"""The retry context: a failed response's errors and calls, as text for the next request.

It tells the model that nothing was applied as such, that the edits which succeeded are kept in
the versions it is shown next (`Result.partial`, with their file_ids listed here), and to send
only what failed, against those versions. A caller using it must therefore offer the partial
contents as the writable pending versions of the next request (`bb7.chat` does, from the
retry state the state layer persists). The `@retry_context` markers around it are the prompt's
(`bb7.prompt.assemble`), so they are not part of this text.
"""

from __future__ import annotations

from bb7.formats.apply import ApplyError, CallSummary, Result
from bb7.formats.arguments import NOT_JSON
from bb7.formats.modes import is_text_mode

_TEXT_KINDS = ("search_replace_block", "edit_block", "text")


def retry_context(result: Result) -> str:
    """Errors, the version (and file_id) to edit for each path, and the original calls."""
    if result.ok:
        return ""
    partial = {change.path: change.file_id for change in result.partial}
    text_only = all(call.kind in _TEXT_KINDS for call in result.calls)
    failed = sum(1 for call in result.calls if not call.ok)
    out = [
        f"Your previous response could not be applied: {len(result.errors)} problem(s) in "
        f"{failed} of its {len(result.calls)} call(s)/block(s). bb7 applies a response all or "
        "nothing, so the user saw none of its changes.",
        "What did succeed is kept: the files you are shown now already contain those changes. "
        "Send again ONLY what failed, fixed, written against the versions below"
        + (" (text blocks carry no file_id)." if text_only else ", with their file_id."),
        "",
        "Versions to edit now:",
    ]
    for path in _paths(result):
        if path in partial:
            out.append(f"- {path}: file_id {partial[path]} (your successful changes applied)")
        elif path in result.base_ids:
            out.append(f"- {path}: file_id {result.base_ids[path]} (unchanged)")
        else:
            out.append(f"- {path}: does not exist yet (create it with write_file)")
    out += ["", "Errors:"]
    out += [_error(number, error, result) for number, error in enumerate(result.errors, 1)]
    out += ["", *_advice(result), "", "Your previous calls, as sent:"]
    for call in result.calls:
        out.append(f"{_where_call(call)}: {'applied, kept' if call.ok else 'FAILED'}")
        if not call.ok:
            out.append(call.raw)
    return "\n".join(out)


def _paths(result: Result) -> list[str]:
    paths = [e.path for e in result.errors if e.path and e.kind not in _BAD_PATH]
    return list(dict.fromkeys(paths))


_BAD_PATH = ("path_escape", "protected_path")


def _error(number: int, error: ApplyError, result: Result) -> str:
    call = next((c for c in result.calls if c.block == error.block), None)
    where = _where_call(call) if call is not None else "the response"
    if error.edit is not None:
        where += f", {'change' if result.mode == 'anchored' else 'edit'} {error.edit}"
    if error.path:
        where += f", {error.path}"
    lines = [f"{number}. {where} [{error.kind}]: {error.message}"]
    if error.best is not None and error.best.text and error.best.text not in error.message:
        lines.append(
            f"   Closest text, lines {error.best.start_line}-{error.best.end_line}:\n"
            f"{error.best.text}"
        )
    return "\n".join(lines)


def _where_call(call: CallSummary) -> str:
    if call.kind in _TEXT_KINDS:
        name = {"search_replace_block": "SEARCH/REPLACE block", "edit_block": "EDIT block"}
        label = name.get(call.kind, "text")
        return f"{label} {call.block or ''} at line {call.line}".replace("  ", " ")
    return f"call {call.block} ({call.kind or 'unnamed tool'})"


def _advice(result: Result) -> list[str]:
    kinds = {e.kind for e in result.errors}
    advice = ["How to fix:"]
    if kinds & {"not_found", "ambiguous"}:
        advice.append(
            "- Copy the text to find exactly from the version listed above (indentation "
            "included); drop edits already applied; add neighbouring lines until it matches "
            "one place only."
        )
    if kinds & {"file_id_mismatch", "file_id_missing"}:
        advice.append("- Put the file_id listed above on every edit of that path.")
    if result.mode == "search_replace":
        advice.append(
            "- One edit per edit_file call. Two failed edits of one path: merge them into one "
            "edit whose old_string covers both places (a second call would need the id of the "
            "content after the first)."
        )
    elif result.mode == "search_replace_multi":
        advice.append("- Send all the fixed edits in one edit_file call.")
    elif is_text_mode(result.mode):
        advice.append(
            "- Send each fixed block complete: the path line, then the whole block with all its "
            "markers."
        )
    elif result.mode == "anchored":
        advice.append(
            "- Anchors are matched against the version listed above; regions must not overlap."
        )
    if kinds & {"write_edit_conflict", "duplicate_write"}:
        advice.append("- Change each path with one write_file, or with edit_file edits only.")
    if kinds & {"malformed", "invalid"}:
        advice.append("- Resend each broken call or block complete and well-formed.")
    if _broken_tool_json(result):
        advice.append(
            "- Tool-call arguments that are not valid JSON cannot be applied: call the tool "
            "again with one valid JSON object, or write the change in your answer's text as "
            "SEARCH/REPLACE blocks instead (the file's path alone on a line, then <<<<<<< "
            "SEARCH, the exact lines to find, =======, the new lines, >>>>>>> REPLACE); bb7 "
            "reads those too."
        )
    return advice


def _broken_tool_json(result: Result) -> bool:
    """A tool call whose arguments the lenient reader could not mend into a JSON object."""
    tools = {call.block for call in result.calls if call.kind not in _TEXT_KINDS}
    return any(
        error.kind == "invalid" and error.block in tools and NOT_JSON in error.message
        for error in result.errors
    )

"""The `diff_mode` setting: every value, what it means, and the editing prompt each one gets.

The one list of diff_mode values. Tool modes pick the `edit_file` schema offered as a tool
(`bb7.formats.schemas`); text modes ask the model to write edit blocks in its answer instead
(for models without tool calls, or by choice). A model the models list marks as having no tool
support gets text blocks whatever the mode (`text_mode_for`). Not for deciding which format a
chat uses (`bb7.prompt.assemble.choose_edit_format`) nor for parsing anything.
"""

from __future__ import annotations

from typing import Literal, get_args

from bb7.formats import edit_blocks, search_replace

ToolMode = Literal["search_replace_multi", "search_replace", "anchored", "off"]
TextMode = Literal["edit_blocks", "search_replace_blocks"]
DiffMode = Literal[ToolMode, TextMode]
TOOL_MODES: tuple[ToolMode, ...] = get_args(ToolMode)
TEXT_MODES: tuple[TextMode, ...] = get_args(TextMode)
DIFF_MODES: tuple[DiffMode, ...] = get_args(DiffMode)
DEFAULT_MODE: DiffMode = "search_replace_multi"
# What a model without tool calls writes when diff_mode names a tool mode.
DEFAULT_TEXT_MODE: TextMode = "edit_blocks"

DIFF_MODE_DOCS: dict[DiffMode, str] = {
    "search_replace_multi": "tools: one edit_file call holds every search/replace edit of the "
    "response, across files (default)",
    "search_replace": "tools: one search/replace edit per edit_file call",
    "anchored": "tools: edit_file replaces regions found by a few anchor lines",
    "off": "tools: write_file only; every change sends the whole file",
    "edit_blocks": "text: EDIT blocks (««« EDIT / ═══════ REPL / »»» EDIT END) in the answer",
    "search_replace_blocks": "text: SEARCH/REPLACE blocks (<<<<<<< SEARCH / ======= / "
    ">>>>>>> REPLACE) in the answer",
}


def is_text_mode(mode: str) -> bool:
    return mode in TEXT_MODES


def text_mode_for(mode: DiffMode) -> TextMode:
    """The text format used for `mode` when the model gets text blocks instead of tools."""
    return "search_replace_blocks" if mode == "search_replace_blocks" else DEFAULT_TEXT_MODE


_TOOLS_PROMPT = """\
To change files, call the tools; nothing else in your answer changes a file.
- {edit}
- write_file creates a file, or replaces a whole file when most of it changes.
- Every call names a writable file by its path and, when editing, the file_id of the version you
  edit. The calls of one response apply in order, each to the files as the earlier ones left
  them. If any fails, none is applied and you are told what to fix.
"""
_EDIT_LINES: dict[ToolMode, str] = {
    "search_replace_multi": "edit_file changes parts of existing files by search and replace: "
    "put all edits of the response into one call.",
    "search_replace": "edit_file changes one part of an existing file by search and replace; "
    "make one call per edit.",
    "anchored": "edit_file replaces regions of an existing file, found by anchor lines.",
    "off": "There is no edit_file here: send the complete new content with write_file.",
}


def edit_prompt(mode: DiffMode) -> str:
    """How to change files in `mode`, for the system prompt (a tool mode's tools carry the
    details in their descriptions; a text mode's blocks are explained here in full)."""
    if mode == "edit_blocks":
        return edit_blocks.INSTRUCTIONS
    if mode == "search_replace_blocks":
        return search_replace.INSTRUCTIONS
    return _TOOLS_PROMPT.format(edit=_EDIT_LINES[mode])

"""Edit formats: tool schemas, text blocks, and applying a whole response all or nothing."""

from bb7.formats.apply import (
    ApplyError,
    FileChange,
    FileState,
    Result,
    apply_response,
    response_paths,
)
from bb7.formats.detect import detect_format
from bb7.formats.modes import DEFAULT_MODE, DIFF_MODES, DiffMode, edit_prompt
from bb7.formats.response import Response, ToolCall, parse_response
from bb7.formats.retry import retry_context
from bb7.formats.schemas import tools_for_mode
from bb7.formats.stream import TextParser, parse_text

__all__ = [
    "DEFAULT_MODE",
    "DIFF_MODES",
    "ApplyError",
    "DiffMode",
    "FileChange",
    "FileState",
    "Response",
    "Result",
    "TextParser",
    "ToolCall",
    "apply_response",
    "detect_format",
    "edit_prompt",
    "parse_response",
    "parse_text",
    "response_paths",
    "retry_context",
    "tools_for_mode",
]

"""The file tools a model may call, as msgspec Structs, and the JSON Schemas generated from them.

A tool `diff_mode` picks the `edit_file` schema (see `EDIT_SCHEMAS`); `write_file` is always
offered in those modes, and the text modes (`bb7.formats.modes`) offer no tools.
The same Structs decode the model's arguments (`bb7.formats.calls`), so what the model is told
and what bb7 accepts cannot drift apart. Not for applying edits (`bb7.formats.apply`).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta

from bb7.formats.modes import DiffMode, is_text_mode
from bb7.provider.wire import ToolSpec

MAX_ANCHOR_LINES = 10

Path_ = Annotated[
    str,
    Meta(description="Project-relative path, exactly as the prompt names the file (path=...)."),
]
FileId = Annotated[
    str,
    Meta(
        description=(
            "The id of the version you edit: the file's current id, as the Files list of the "
            "latest message gives it. Every edit of a path in one call carries the id the path "
            "had when the call started."
        )
    ),
]
OldString = Annotated[
    str,
    Meta(
        description=(
            "Text copied exactly from the file, indentation included, long enough to match "
            "exactly one place. Empty only to create a new (or empty) file."
        )
    ),
]
NewString = Annotated[
    str, Meta(description="The replacement text; empty to delete old_string's lines.")
]
ReplaceAll = Annotated[
    bool, Meta(description="Replace every occurrence of old_string instead of exactly one.")
]


class WriteFile(msgspec.Struct, kw_only=True):
    """Arguments of write_file: a new file or a complete rewrite."""

    path: Path_
    content: Annotated[
        str, Meta(description="The complete file content; never elide anything with '...'.")
    ]


class Edit(msgspec.Struct, kw_only=True):
    """One search/replace edit of one file."""

    path: Path_
    # "" when absent: pasted responses may carry no ids; `require_file_id` decides.
    file_id: FileId = ""
    old_string: OldString
    new_string: NewString
    replace_all: ReplaceAll = False


class EditFileMulti(msgspec.Struct, kw_only=True):
    """Arguments of edit_file in search_replace_multi mode."""

    edits: Annotated[
        list[Edit],
        Meta(
            min_length=1,
            description="Edits applied in order; each sees the result of the previous ones.",
        ),
    ]


class AnchoredChange(msgspec.Struct, kw_only=True):
    """One region of a file, found by anchor lines, replaced by `content`."""

    start: Annotated[
        list[str],
        Meta(
            min_length=1,
            max_length=MAX_ANCHOR_LINES,
            description=(
                "1-10 consecutive lines copied exactly from the file where the region starts; "
                "they must occur only once in the file."
            ),
        ),
    ]
    end: (
        Annotated[
            list[str],
            Meta(
                max_length=MAX_ANCHOR_LINES,
                description=(
                    "0-10 consecutive lines where the region ends (searched after start, must "
                    "be unique there). Omit to replace exactly the start lines."
                ),
            ),
        ]
        | None
    ) = None
    content: Annotated[
        list[str],
        Meta(
            description=(
                "The lines replacing the whole region, anchors included: repeat anchor lines "
                "you keep. Empty deletes the region."
            )
        ),
    ]


class EditFileAnchored(msgspec.Struct, kw_only=True):
    """Arguments of edit_file in anchored mode."""

    path: Path_
    file_id: FileId = ""
    changes: Annotated[
        list[AnchoredChange],
        Meta(
            min_length=1,
            description=(
                "Regions to replace, all located in the file as it was before this call; "
                "they must not overlap."
            ),
        ),
    ]


class WantedFile(msgspec.Struct, kw_only=True):
    """One file (or a range of its lines) the model asks to see."""

    path: Annotated[str, Meta(description="Project-relative path of a file you need to see.")]
    start_line: (
        Annotated[int, Meta(ge=1, description="First line wanted (1-based); omit for all.")] | None
    ) = None
    end_line: (
        Annotated[int, Meta(ge=1, description="Last line wanted (inclusive); omit for all.")] | None
    ) = None


class RequestFiles(msgspec.Struct, kw_only=True):
    """Arguments of request_files: files the model needs before it can answer well."""

    files: Annotated[list[WantedFile], Meta(min_length=1, description="The files you need.")]
    why: Annotated[str, Meta(description="One line: why you need them.")] = ""


REQUEST_FILES_DESCRIPTION = (
    "Ask the user for project files you need and do not have, instead of guessing their "
    "content. The user decides whether to add them and then sends the question again; nothing "
    "is added without them. Asking ends your answer: call it alone, before any edit."
)

# The edit_file arguments Struct per diff_mode (none in "off").
EDIT_SCHEMAS: dict[DiffMode, type[EditFileMulti] | type[Edit] | type[EditFileAnchored]] = {
    "search_replace_multi": EditFileMulti,
    "search_replace": Edit,
    "anchored": EditFileAnchored,
}

_ATOMIC = (
    "If any edit of your response fails, none is applied and you get the errors to fix in the "
    "next turn."
)
_FILE_ID = (
    "file_id is the file's current id, as the Files list of the latest message gives it. A later "
    "edit_file call on a path you already edited in this response must carry the id of the "
    "content after those edits, which you only know from a retry message: put all edits of a "
    "path into one call when you can."
)

WRITE_FILE_DESCRIPTION = (
    "Create a new file, or replace a whole file when most of it changes. content is the "
    "complete file: never abbreviate with '...' or comments like '// rest unchanged'. Call it at "
    "most once per path in a response, and never together with edit_file on the same path. "
    + _ATOMIC
)

EDIT_DESCRIPTIONS: dict[DiffMode, str] = {
    "search_replace_multi": (
        "Edit existing files by search and replace. Put every edit of this response into one "
        "call: edits are applied in order, each seeing the result of the previous ones, and may "
        "span several files. old_string is copied exactly from the file (indentation included) "
        "and must match exactly one place: add neighbouring lines when a line repeats, or set "
        "replace_all. To insert, put the neighbouring line(s) in old_string and repeat them in "
        "new_string with the addition; an empty new_string deletes. " + _FILE_ID + " " + _ATOMIC
    ),
    "search_replace": (
        "Edit an existing file by search and replace, one edit per call; make several calls for "
        "several edits, applied in order. old_string is copied exactly from the file "
        "(indentation included) and must match exactly one place: add neighbouring lines when a "
        "line repeats, or set replace_all. To insert, put the neighbouring line(s) in old_string "
        "and repeat them in new_string with the addition; an empty new_string deletes. "
        + _FILE_ID
        + " "
        + _ATOMIC
    ),
    "anchored": (
        "Edit an existing file by replacing regions found by anchor lines. Each change names "
        "the region by start (1-10 lines copied from the file where it begins) and optionally "
        "end (lines where it ends, searched after start); without end the region is exactly the "
        "start lines. content replaces the whole region, anchors included, so repeat the anchor "
        "lines you keep; empty content deletes the region. Anchors are matched against the file "
        "as it was before this call (exactly, then ignoring trailing whitespace, then ignoring "
        "indentation), must each be unique, and regions must not overlap. "
        + _FILE_ID
        + " "
        + _ATOMIC
    ),
}


def tools_for_mode(mode: DiffMode) -> list[ToolSpec]:
    """The tools offered in `mode`: write_file, plus the mode's edit_file unless mode is off,
    plus request_files; none in a text mode (the model writes blocks instead)."""
    if is_text_mode(mode):
        return []
    tools = [ToolSpec("write_file", WRITE_FILE_DESCRIPTION, parameters_schema(WriteFile))]
    schema = EDIT_SCHEMAS.get(mode)
    if schema is not None:
        tools.append(ToolSpec("edit_file", EDIT_DESCRIPTIONS[mode], parameters_schema(schema)))
    request = parameters_schema(RequestFiles)
    tools.append(ToolSpec("request_files", REQUEST_FILES_DESCRIPTION, request))
    return tools


def parameters_schema(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """A self-contained JSON Schema for `struct`: references inlined (several providers reject
    `$ref`), no titles, and `file_id` required (the model must always send it)."""
    (root,), defs = msgspec.json.schema_components([struct], ref_template="#/$defs/{name}")
    result: dict[str, Any] = _inline(root, defs)
    result.pop("description", None)  # the tool's description says it better
    return result


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        return _inline(defs[ref.rsplit("/", 1)[1]], defs)
    out = {key: _inline(value, defs) for key, value in node.items() if key != "title"}
    properties = out.get("properties")
    if isinstance(properties, dict) and "file_id" in properties:
        properties["file_id"].pop("default", None)
        out["required"] = [*out.get("required", []), "file_id"]
    return out

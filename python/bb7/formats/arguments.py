"""Tool-call arguments as JSON objects: parse strictly, repair only what has one reading.

Repaired, in this order: a JSON object encoded twice (a JSON string holding the object), commas
before a closing `}` or `]`, and closing brackets missing at the very end of a text that
otherwise ends on a complete value. Anything else (a cut string, a cut number, a dangling key,
single quotes...) is `invalid`, with the raw text quoted so the model sees what it sent.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

QUOTE_LIMIT = 2000
_CLOSERS = {"{": "}", "[": "]"}


class Arguments(msgspec.Struct, frozen=True):
    """A parsed arguments object and the repairs it needed (empty when it was valid JSON)."""

    value: dict[str, Any]
    repairs: tuple[str, ...] = ()


# How an error says that arguments could not be read (or mended) as JSON at all.
NOT_JSON = "not a valid JSON object"


class ArgumentError(msgspec.Struct, frozen=True):
    """Arguments that are not one JSON object, even after the safe repairs."""

    kind: str
    message: str


def parse_arguments(raw: object) -> Arguments | ArgumentError:
    """Arguments given as JSON text, or already decoded (the simplified tool-call shape)."""
    if isinstance(raw, Mapping):
        return Arguments(dict(raw))
    if raw is None:
        return Arguments({})
    if not isinstance(raw, str):
        return _invalid(f"arguments must be a JSON object, got {type(raw).__name__}", repr(raw))
    if not raw.strip():
        return Arguments({})
    return parse_json_object(raw)


def parse_json_object(text: str) -> Arguments | ArgumentError:
    """One JSON object from `text`, repaired only where the repair is unambiguous."""
    found = _decode_repaired(text)
    if isinstance(found, str):
        return _invalid(found, text)
    value, repairs = found
    if isinstance(value, str):
        inner = _decode_repaired(value)
        if not isinstance(inner, str) and isinstance(inner[0], dict):
            return Arguments(inner[0], ("double_encoded", *repairs, *inner[1]))
    if not isinstance(value, dict):
        return _invalid(f"expected a JSON object, got {_json_type(value)}", text)
    return Arguments(value, repairs)


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`text` for an error message: whole when short, else its start and end around a gap."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 3 // 4], text[-limit // 4 :]
    return f"{head}\n... ({len(text) - len(head) - len(tail)} characters omitted) ...\n{tail}"


def _decode_repaired(text: str) -> tuple[Any, tuple[str, ...]] | str:
    """The decoded value and the repairs used, or the strict parser's complaint."""
    try:
        return msgspec.json.decode(text), ()
    except msgspec.DecodeError as exc:
        complaint = str(exc)
    except RecursionError:  # nested past msgspec's bound: no repair makes it shallower
        return "the JSON is nested too deeply (over a thousand levels)"
    attempts: list[tuple[tuple[str, ...], Callable[[str], str | None]]] = [
        (("trailing_commas",), _drop_trailing_commas),
        (("closed_brackets",), _close_brackets),
        (("trailing_commas", "closed_brackets"), _both),
    ]
    for names, repair in attempts:
        fixed = repair(text)
        if fixed is None or fixed == text:
            continue
        try:
            return msgspec.json.decode(fixed), names
        except (msgspec.DecodeError, RecursionError):
            continue
    return complaint


def _both(text: str) -> str | None:
    dropped = _drop_trailing_commas(text)
    return _close_brackets(dropped) if dropped is not None else None


def _scan(text: str) -> tuple[list[int], list[str], bool]:
    """Offsets of commas followed only by blanks and a closer, the open brackets, in-string."""
    commas: list[int] = []
    stack: list[str] = []
    in_string = escaped = False
    pending_comma: int | None = None
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch in " \t\r\n":
            continue
        if ch in "}]" and pending_comma is not None:
            commas.append(pending_comma)
        pending_comma = i if ch == "," else None
        if ch == '"':
            in_string = True
        elif ch in _CLOSERS:
            stack.append(ch)
        elif ch in "}]" and stack:
            stack.pop()
    return commas, stack, in_string


def _drop_trailing_commas(text: str) -> str | None:
    commas, _, _ = _scan(text)
    if not commas:
        return None
    for at in reversed(commas):
        text = text[:at] + text[at + 1 :]
    return text


def _close_brackets(text: str) -> str | None:
    """Append the missing closers when the text stops right after a complete value."""
    _, stack, in_string = _scan(text)
    body = text.rstrip()
    # A cut string, number, key or separator could have continued in many ways: not repaired.
    if in_string or not stack or not body or body[-1] not in '"}]el':
        return None
    return body + "".join(_CLOSERS[ch] for ch in reversed(stack))


def _json_type(value: object) -> str:
    names = {str: "a string", list: "an array", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _invalid(reason: str, raw: str) -> ArgumentError:
    return ArgumentError(
        "invalid",
        f"The arguments are {NOT_JSON} ({reason}) and no safe repair applies. "
        f"They were:\n{quote(raw)}\nSend the call again with its arguments as one valid JSON "
        "object.",
    )

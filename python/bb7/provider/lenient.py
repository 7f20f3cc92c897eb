"""Decoding one stream chunk (or event) so that a field of an unexpected type never erases the rest.

The typed decoder (`wire.CHUNK_DECODER`) reads almost every chunk at full speed. When it
refuses one (a provider sent, say, a list where a string was expected), the chunk is read again
as plain JSON and converted field by field: every field that fits is kept, every one that does
not is dropped and named in `Decoded.skipped`, so the caller can warn the user instead of
losing the text that came with it. A payload that is not a JSON object at all gives no chunk.
Bytes that are not UTF-8 are replaced by U+FFFD (and said); a payload nested deeper than the
decoder's bound (msgspec's, about a thousand levels) is dropped whole, never a traceback.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from bb7.provider.wire import CHUNK_DECODER, Chunk


class Decoded(msgspec.Struct, frozen=True):
    """`chunk` is None when nothing of the payload could be used; `skipped` names the dropped
    fields (`choices[0].delta.content`) or says why the whole payload was dropped."""

    chunk: Chunk | None
    skipped: tuple[str, ...] = ()


S = TypeVar("S")


class _Skip:
    pass


_SKIP = _Skip()


def decode_chunk(payload: bytes) -> Decoded:
    """A Chat Completions chunk, as much of it as fits."""
    decoded = decode_lenient(payload, CHUNK_DECODER, _salvage_chunk)
    return Decoded(*decoded)


def decode_lenient(
    payload: bytes,
    decoder: msgspec.json.Decoder[S],
    salvage: Callable[[dict[str, Any], list[str]], S] | None = None,
) -> tuple[S | None, tuple[str, ...]]:
    """The payload as `decoder`'s Struct, or as much of it as fits (`salvage`: how a JSON
    object becomes one, field by field; by default every field that fits its type), and what
    was dropped. Any API's stream events are read through here."""
    value: S | None
    try:
        value, skipped = _decode(payload, decoder, salvage)
        return value, skipped
    except UnicodeDecodeError as exc:
        replaced = payload.decode("utf-8", errors="replace").encode("utf-8")
        note = f"bytes that are not UTF-8 (byte {exc.start}; replaced by U+FFFD)"
    except RecursionError:
        return None, (f"a chunk nested too deeply ({len(payload)} bytes)",)
    try:
        value, skipped = _decode(replaced, decoder, salvage)
    except RecursionError:
        return None, (f"a chunk nested too deeply ({len(payload)} bytes)",)
    return value, (note, *skipped)


def _decode(
    payload: bytes,
    decoder: msgspec.json.Decoder[Any],
    salvage: Callable[[dict[str, Any], list[str]], Any] | None,
) -> tuple[Any, tuple[str, ...]]:
    try:
        return decoder.decode(payload), ()
    except msgspec.ValidationError:
        pass  # valid JSON of an unexpected shape: salvage it below
    except msgspec.DecodeError:
        return None, (f"a chunk that is not valid JSON ({len(payload)} bytes)",)
    value = msgspec.json.decode(payload)
    if not isinstance(value, dict):
        return None, (f"a chunk that is not a JSON object ({type(value).__name__})",)
    skipped: list[str] = []
    if salvage is not None:
        return salvage(value, skipped), tuple(skipped)
    converted = _convert(value, decoder.type, "", skipped)
    return (None if converted is _SKIP else converted), tuple(skipped)


def _salvage_chunk(value: dict[str, Any], skipped: list[str]) -> Chunk:
    # `error` is kept as raw JSON, which only the byte decoder produces: encode it back.
    error = value.pop("error", None)
    chunk: Chunk = _convert(value, Chunk, "", skipped)
    if error is not None:
        chunk.error = msgspec.Raw(msgspec.json.encode(error))
    return chunk


def _convert(value: Any, kind: Any, path: str, skipped: list[str]) -> Any:
    """`value` as `kind`, or, for a Struct or a list, as much of it as fits."""
    try:
        return msgspec.convert(value, kind)
    except msgspec.ValidationError:
        pass
    struct = _struct_in(kind)
    if struct is not None and isinstance(value, dict):
        fields: dict[str, Any] = {}
        for name, encoded, kind_of_field in _fields(struct):
            if encoded not in value:
                continue
            where = f"{path}.{encoded}" if path else encoded
            converted = _convert(value[encoded], kind_of_field, where, skipped)
            if converted is not _SKIP:
                fields[name] = converted
        return struct(**fields)
    listed = _list_in(kind)
    if listed is not None and isinstance(value, list):
        (item,) = typing.get_args(listed)
        items = (_convert(v, item, f"{path}[{i}]", skipped) for i, v in enumerate(value))
        return [v for v in items if v is not _SKIP]
    skipped.append(f"{path or 'chunk'} ({_json_type(value)})")
    return _SKIP


@functools.cache
def _fields(struct: type[msgspec.Struct]) -> tuple[tuple[str, str, Any], ...]:
    """(name, JSON name, type) of each field; resolving the annotations is slow, so once."""
    return tuple((f.name, f.encode_name, f.type) for f in msgspec.structs.fields(struct))


@functools.cache
def _struct_in(kind: Any) -> Any:
    return _member(kind, lambda k: isinstance(k, type) and issubclass(k, msgspec.Struct))


@functools.cache
def _list_in(kind: Any) -> Any:
    return _member(kind, lambda k: typing.get_origin(k) is list)


def _member(kind: Any, wanted: Callable[[Any], bool]) -> Any:
    """The first member of a union type (or the type itself) that `wanted` accepts."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return next((k for k in typing.get_args(kind) if wanted(k)), None)
    return kind if wanted(kind) else None


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")

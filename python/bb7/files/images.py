"""Images a user adds to a chat (PNG, JPEG, GIF, WebP): recognized, measured and priced in tokens.

An image is read whole, at most `MAX_IMAGE_BYTES` (Anthropic's limit per image, the smallest of
the APIs bb7 speaks), and at most `MAX_SIDE` pixels on a side. Its type comes from its first
bytes, not its name (a `.png` that holds a JPEG is sent as a JPEG: a provider checks); its size
in pixels from its header, so no image library is needed. Its token cost is Anthropic's rule:
width x height / 750 once the provider has scaled it to fit 1568 pixels on its long side and
about 1.15 megapixels (OpenAI's tiles come to within about a third of that). Sent as base64:
`data_url` for the Chat Completions `image_url` part, `base64` for Anthropic's `image` block.
Not for: where an image sits in the prompt, or which models take images.
"""

from __future__ import annotations

import base64
import math
from pathlib import Path
from typing import Literal, cast

import msgspec

from bb7.files.fsio import FileProblem, load_bytes
from bb7.refusal import FileProblemKind, ImageProblemKind

MediaType = Literal["image/png", "image/jpeg", "image/gif", "image/webp"]

# What a name must end with to be read as an image (a directory or glob add never takes one).
SUFFIXES: dict[str, MediaType] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_SIDE = 8000
# The provider scales an image down to this long side and this many pixels before counting.
_LONG_SIDE = 1568
_PIXELS = 1_150_000
_PIXELS_PER_TOKEN = 750


class ImageProblem(msgspec.Struct, frozen=True):
    kind: ImageProblemKind | FileProblemKind
    message: str


class Image(msgspec.Struct, frozen=True):
    """An image's bytes with what they are."""

    media_type: MediaType
    width: int
    height: int
    data: bytes

    @property
    def tokens(self) -> int:
        return image_tokens(self.width, self.height)

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64()}"


def from_data_url(text: str, name: str) -> Image | ImageProblem:
    """The image a data URL (`data:image/png;base64,...`, as bb7 stores one) holds."""
    head, comma, data = text.partition(",")
    if not comma or not head.startswith("data:") or not head.endswith(";base64"):
        return ImageProblem("not_image", f"{name} is not an image bb7 stored")
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError:
        return ImageProblem("not_image", f"{name} is not an image bb7 stored")
    return image_from_bytes(raw, name)


def data_url_tokens(text: str) -> int:
    """The tokens of the image a stored data URL holds (0 for anything else): its header is
    read from the first bytes only, so a files panel of images stays quick."""
    head, _, data = text.partition(",")
    media = head.removeprefix("data:").removesuffix(";base64")
    if media not in SUFFIXES.values():
        return 0
    for size in (_HEADER_CHARS, len(data)):
        try:
            raw = base64.b64decode(data[: size - size % 4])
        except ValueError:
            return 0
        found = dimensions(raw, cast(MediaType, media))
        if found is not None:
            return image_tokens(*found)
    return 0


# Base64 characters read for an image's size: every PNG, GIF and WebP header and most JPEGs'
# (a JPEG's size follows its metadata, which a camera can make long: then all of it is read).
_HEADER_CHARS = 256 * 1024


def is_image_name(path: str) -> bool:
    """Whether a name is one bb7 reads as an image (by its suffix, in any case)."""
    return Path(path).suffix.lower() in SUFFIXES


def image_tokens(width: int, height: int) -> int:
    """Tokens the provider counts for an image of this size (see the module docstring)."""
    if width <= 0 or height <= 0:
        return 0
    scale = min(1.0, _LONG_SIDE / max(width, height), math.sqrt(_PIXELS / (width * height)))
    return math.ceil(int(width * scale) * int(height * scale) / _PIXELS_PER_TOKEN)


def read_image(path: Path, name: str | None = None) -> Image | ImageProblem | FileProblem:
    """The image at `path` (`name`: how messages call it), or why it cannot be sent."""
    shown = name or str(path)
    data = load_bytes(path, max_bytes=MAX_IMAGE_BYTES)
    if isinstance(data, FileProblem):
        if data.kind == "too_large":
            try:
                size = path.stat().st_size
            except OSError:
                size = MAX_IMAGE_BYTES + 1
            return ImageProblem("too_large", _too_large(shown, size))
        return data
    return image_from_bytes(data, shown)


def image_from_bytes(data: bytes, name: str) -> Image | ImageProblem:
    """`data` as an image (a file's bytes, or the clipboard's), or why it cannot be sent."""
    if len(data) > MAX_IMAGE_BYTES:
        return ImageProblem("too_large", _too_large(name, len(data)))
    media_type = media_type_of(data)
    if media_type is None:
        return ImageProblem(
            "not_image", f"{name} is not a PNG, JPEG, GIF or WebP image; bb7 sends only those"
        )
    size = dimensions(data, media_type)
    if size is None:
        return ImageProblem("not_image", f"{name} is a damaged {_short(media_type)} image")
    width, height = size
    if max(width, height) > MAX_SIDE:
        return ImageProblem(
            "too_large",
            f"{name} is {width}x{height} pixels; an image may be at most {MAX_SIDE} on a side",
        )
    return Image(media_type, width, height, data)


def media_type_of(data: bytes) -> MediaType | None:
    """The image type its first bytes say, or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def dimensions(data: bytes, media_type: MediaType) -> tuple[int, int] | None:
    """(width, height) in pixels from the image's header; None when the header is damaged."""
    if media_type == "image/png":
        return _png(data)
    if media_type == "image/gif":
        return _gif(data)
    if media_type == "image/webp":
        return _webp(data)
    return _jpeg(data)


def _png(data: bytes) -> tuple[int, int] | None:
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    return _positive(int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))


def _gif(data: bytes) -> tuple[int, int] | None:
    if len(data) < 10:
        return None
    return _positive(int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little"))


def _webp(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width = int.from_bytes(data[26:28], "little") & 0x3FFF
        height = int.from_bytes(data[28:30], "little") & 0x3FFF
        return _positive(width, height)
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return _positive((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return _positive(width, height)
    return None


# JPEG markers of a start of frame, which holds the size: C0-CF but for DHT, JPG and DAC.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if marker in _SOF:
            if at + 9 > len(data):
                return None
            height = int.from_bytes(data[at + 5 : at + 7], "big")
            width = int.from_bytes(data[at + 7 : at + 9], "big")
            return _positive(width, height)
        if marker == 0xDA or length < 2:  # the scan starts before any frame: damaged
            return None
        at += 2 + length
    return None


def _positive(width: int, height: int) -> tuple[int, int] | None:
    return (width, height) if width > 0 and height > 0 else None


def _short(media_type: MediaType) -> str:
    return media_type.split("/", 1)[1].upper()


def _too_large(name: str, size: int) -> str:
    return (
        f"{name} is {size / (1024 * 1024):.1f} MB; an image may be at most "
        f"{MAX_IMAGE_BYTES // (1024 * 1024)} MB"
    )

"""Images a user adds: recognized by their bytes, measured from their headers, refused in one
line when too large or not an image, priced in tokens; and taken from the clipboard through a
clipboard tool on the PATH."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from bb7.files.clipboard import ClipboardProblem, clipboard_image
from bb7.files.fsio import FileProblem
from bb7.files.images import (
    MAX_IMAGE_BYTES,
    Image,
    ImageProblem,
    image_from_bytes,
    image_tokens,
    is_image_name,
    read_image,
)
from image_files import gif, jpeg, png, webp_lossless, webp_lossy


def test_each_kind_is_recognized_and_measured() -> None:
    cases = {
        "image/png": png(3, 2),
        "image/jpeg": jpeg(640, 480),
        "image/gif": gif(17, 9),
        "image/webp": webp_lossless(100, 50),
    }
    for media_type, data in cases.items():
        image = image_from_bytes(data, "x")
        assert isinstance(image, Image), image
        assert image.media_type == media_type
    sizes = [image_from_bytes(d, "x") for d in cases.values()]
    assert [(i.width, i.height) for i in sizes if isinstance(i, Image)] == [
        (3, 2),
        (640, 480),
        (17, 9),
        (100, 50),
    ]
    lossy = image_from_bytes(webp_lossy(320, 200), "x")
    assert isinstance(lossy, Image) and (lossy.width, lossy.height) == (320, 200)


def test_the_bytes_decide_the_type_not_the_name(tmp_path: Path) -> None:
    path = tmp_path / "shot.png"
    path.write_bytes(jpeg(10, 10))
    image = read_image(path, "shot.png")
    assert isinstance(image, Image) and image.media_type == "image/jpeg"
    assert image.data_url() == "data:image/jpeg;base64," + base64.b64encode(jpeg(10, 10)).decode()


def test_what_cannot_be_sent_is_refused_in_one_line(tmp_path: Path) -> None:
    big = tmp_path / "big.png"
    big.write_bytes(png() + b"\0" * MAX_IMAGE_BYTES)
    refused = read_image(big, "big.png")
    assert isinstance(refused, ImageProblem) and refused.kind == "too_large"
    assert refused.message == "big.png is 5.0 MB; an image may be at most 5 MB"
    wide = image_from_bytes(png(8001, 1), "wide.png")
    assert isinstance(wide, ImageProblem)
    assert wide.message == "wide.png is 8001x1 pixels; an image may be at most 8000 on a side"
    text = image_from_bytes(b"just text", "notes.png")
    assert isinstance(text, ImageProblem) and text.kind == "not_image"
    assert text.message == "notes.png is not a PNG, JPEG, GIF or WebP image; bb7 sends only those"
    cut = image_from_bytes(png()[:20], "cut.png")
    assert isinstance(cut, ImageProblem) and cut.message == "cut.png is a damaged PNG image"
    missing = read_image(tmp_path / "gone.png")
    assert isinstance(missing, FileProblem) and missing.kind == "missing"
    for problem in (refused, wide, text, cut):
        assert "\n" not in problem.message and len(problem.message) <= 80


def test_tokens_follow_the_providers_scaling() -> None:
    assert image_tokens(750, 1) == 1
    assert image_tokens(1000, 1000) == 1334  # 1,000,000 / 750, under both limits
    # A 4K screenshot is scaled to about 1.15 megapixels first: ~1,530 tokens, not 11,000.
    assert 1500 <= image_tokens(3840, 2160) <= 1540
    # A tall strip is scaled to 1568 on its long side.
    assert image_tokens(100, 3136) == image_tokens(50, 1568)
    assert image_tokens(0, 10) == 0


def test_only_image_names_count_as_images() -> None:
    assert is_image_name("shot.PNG") and is_image_name("a/b.jpeg") and is_image_name("x.webp")
    assert not is_image_name("notes.md") and not is_image_name("png")


def fake_tool(bin_dir: Path, name: str, script: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)


def test_the_clipboard_image_comes_from_the_tool_on_the_path(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    shot.write_bytes(png(4, 4))
    fake_tool(
        tmp_path,
        "wl-paste",
        'if [ "$1" = --list-types ]; then printf "text/plain\\nimage/png\\n"; exit 0; fi\n'
        f'[ "$3" = image/png ] && cat "{shot}"\n',
    )
    environ = {"PATH": f"{tmp_path}:{os.defpath}", "WAYLAND_DISPLAY": "wayland-0"}
    assert clipboard_image(environ) == png(4, 4)
    # Without a Wayland session wl-paste is not asked; no other tool: the one-line refusal.
    refused = clipboard_image({"PATH": str(tmp_path)})
    assert isinstance(refused, ClipboardProblem) and refused.kind == "no_clipboard_tool"
    assert refused.message.startswith("no clipboard tool for images found: install")


def test_a_clipboard_without_an_image_says_so(tmp_path: Path) -> None:
    fake_tool(tmp_path, "xclip", 'printf "TARGETS\\nUTF8_STRING\\n"\n')
    environ = {"PATH": f"{tmp_path}:{os.defpath}", "DISPLAY": ":0"}
    refused = clipboard_image(environ)
    assert refused == ClipboardProblem("no_image", "the clipboard holds no image")
    fake_tool(tmp_path, "pngpaste", "exit 1\n")
    (tmp_path / "xclip").unlink()
    refused = clipboard_image({"PATH": f"{tmp_path}:{os.defpath}"})
    assert isinstance(refused, ClipboardProblem) and refused.kind == "no_image"
    assert refused.message == "the clipboard holds no image (pngpaste exit status 1)"

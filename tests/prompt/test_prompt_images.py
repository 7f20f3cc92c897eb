"""An image in the context: an image part between its markers where the model first sees it,
counted as the provider counts it, sent in each API's shape, and refused in one line for a model
that reads no images."""

from __future__ import annotations

import base64
import json

from bb7.files.images import image_tokens
from bb7.prompt.assemble import (
    ContextFile,
    HistoryTurn,
    PromptInput,
    assemble_prompt,
    chat_request,
)
from bb7.prompt.fit import unreadable_images
from bb7.provider.anthropic_wire import messages_body
from bb7.provider.presets import PRESETS
from bb7.provider.wire import ContentPart, ImagePart, request_body
from image_files import png

SHOT = png(40, 30)
URL = "data:image/png;base64," + base64.b64encode(SHOT).decode()
FILES = [
    ContextFile("a.py", "x = 1\n"),
    ContextFile("shot.png", URL, readonly=True, image=True),
]


def test_an_image_is_a_part_between_its_markers_counted_as_the_provider_counts_it() -> None:
    prompt = assemble_prompt(PromptInput("Why is the button red?", files=FILES, cache_marks=True))
    texts = [p for p in prompt.user if isinstance(p, ContentPart)]
    (image,) = [p for p in prompt.user if isinstance(p, ImagePart)]
    assert image == ImagePart("image/png", base64.b64encode(SHOT).decode())
    before = prompt.user[prompt.user.index(image) - 1]
    after = prompt.user[prompt.user.index(image) + 1]
    assert isinstance(before, ContentPart) and before.text.endswith(" path=shot.png\n")
    assert "@image n=" in before.text and before.cache_control is None
    # The history part ends in text after the image, which carries its cache mark.
    assert isinstance(after, ContentPart) and after.text.startswith("@end image\n")
    assert after.cache_control is not None
    assert texts[-1].text.count("shot.png ro original image") == 1  # the latest Files list
    (counted,) = [p for p in prompt.parts if p.path == "shot.png"]
    assert image_tokens(40, 30) < counted.tokens < image_tokens(40, 30) + 30


def test_a_later_turn_keeps_the_image_where_it_was_and_sends_it_once() -> None:
    first = assemble_prompt(PromptInput("one", files=FILES))
    history = [HistoryTurn(files=FILES)]
    second = assemble_prompt(PromptInput("two", files=FILES, history=history))
    assert sum(isinstance(p, ImagePart) for p in second.user) == 1
    assert second.user[:2] == first.user[:2]


def test_each_api_sends_the_image_in_its_own_shape() -> None:
    request = chat_request(assemble_prompt(PromptInput("look", files=FILES)), "m")
    openai = json.loads(request_body(request, stream=True, preset=PRESETS["openai"]))
    (user,) = [m for m in openai["messages"] if m["role"] == "user"]
    assert {"type": "image_url", "image_url": {"url": URL}} in user["content"]
    anthropic = json.loads(messages_body(request, stream=True))
    blocks = anthropic["messages"][0]["content"]
    source = {"type": "base64", "media_type": "image/png", "data": URL.split(",", 1)[1]}
    assert {"type": "image", "source": source} in blocks


def test_a_model_that_reads_no_images_is_refused_in_one_line() -> None:
    prompt = assemble_prompt(PromptInput("look", files=FILES))
    said = unreadable_images(prompt, False)
    assert said == "The model reads no images: remove shot.png, or pick a model that reads images."
    assert len(said) <= 80 + len("shot.png")
    assert unreadable_images(prompt, True) is None
    assert unreadable_images(prompt, None) is None  # nobody says it cannot: the provider judges
    text_only = assemble_prompt(PromptInput("look", files=FILES[:1]))
    assert unreadable_images(text_only, False) is None

"""One request of a chat, built from its stored state: the prompt, and the bases its edits apply to.

Reads the chat's context snapshots, pending outputs, history and retry state in one transaction,
so the files the model is shown are exactly the versions its edits are checked against. The
retry state's partial versions (what a failed response's successful edits produced) stand in
for the pending outputs of their paths, as the retry context tells the model. Pure reading:
nothing is stored here.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

import msgspec

from bb7.formats.apply import FileState
from bb7.formats.modes import DiffMode, edit_prompt, text_mode_for
from bb7.formats.schemas import tools_for_mode
from bb7.prompt.assemble import (
    EditFormat,
    PendingOutput,
    Prompt,
    PromptInput,
    assemble_prompt,
    chat_request,
    check_context,
    choose_edit_format,
)
from bb7.prompt.config import SendConfig
from bb7.prompt.fit import over_context, unreadable_images
from bb7.prompt.history import context_file, history, pending_output
from bb7.prompt.instructions import Instructions
from bb7.provider.anthropic_wire import max_tokens_for
from bb7.provider.models import ModelInfo, takes_images
from bb7.provider.presets import preset_for
from bb7.provider.wire import ChatRequest, api_of, explicit_cache
from bb7.state.records import GLOBAL
from bb7.state.responses import EditBase, edit_bases, retry_state
from bb7.state.store import Store


class Notice(msgspec.Struct, frozen=True, tag="warning", tag_field="type"):
    """Something the user should know that does not stop the send. Kinds: context_near
    (the prompt nears the model's context; one over it is refused instead), models (the models
    list could not be read), instructions (an instruction file could not be read), retry (part
    of the retry state no longer fits the files), stream (part of the provider's stream could
    not be read and was skipped; the rest of the answer goes on), reasoning (the provider's
    preset takes no reasoning effort, which is left out of the request), follow_edits (the
    user's edits to a context file could not be brought into the chat: it is sent as it was),
    live (a live part could not be read again: the model gets the last reading)."""

    kind: str
    message: str


@dataclass(frozen=True)
class Turn:
    """A request ready to send, and what its answer's edits apply to."""

    request: ChatRequest
    prompt: Prompt
    edit_format: EditFormat
    mode: DiffMode  # how the answer's changes are read (a text mode in text-block format)
    bases: dict[str, EditBase]  # as stored: record_outputs checks they are still current
    files: dict[str, FileState]  # what the edits apply to (partial versions included)
    partial: dict[str, str]  # the retry state's partial versions offered as writable
    notices: list[Notice]
    # Why the prompt cannot be sent: it is larger than the model's context window, or it has
    # an image for a model that reads none.
    too_large: str | None = None
    no_images: str | None = None


def build_turn(
    store: Store,
    chat_id: str,
    latest: str,
    config: SendConfig,
    *,
    before_seq: int | None = None,
    model: ModelInfo | None = None,
    instructions: Instructions | None = None,
    keep_excluded: bool = False,
) -> Turn:
    """The request for `latest` after the chat's messages (those before `before_seq` when
    given: the latest user message is already stored and must not appear twice), but those the
    user excluded (with `keep_excluded`: the request as if none were, to price them)."""
    global_chat = store.scope == GLOBAL
    supports_tools = None if model is None else model.supports_tools
    edit_format = choose_edit_format(config.diff_mode, supports_tools, global_chat=global_chat)
    mode: DiffMode = config.diff_mode
    if edit_format == "text_blocks":
        mode = text_mode_for(config.diff_mode)
    notices: list[Notice] = []
    with store.transaction():
        messages = [m for m in store.messages(chat_id) if before_seq is None or m.seq < before_seq]
        past = history(messages, functools.cache(store.blob), keep_excluded=keep_excluded)
        entries = store.entries_with_text(chat_id)
        outputs = {o.path: (o, store.blob(o.blob)) for o in store.outputs(chat_id)}
        choosing = Counter(choice.path for choice in store.choices(chat_id))
        bases = edit_bases(store, chat_id)
        retry = None if global_chat else retry_state(store, chat_id)
    partial = {} if retry is None else {out.path: out.content for out in retry.outputs}
    retry_text = None if retry is None else retry.text
    if retry is not None and retry.dropped:
        dropped = ", ".join(retry.dropped)
        note = (
            f"Note: {dropped} changed after that response (see the history), so your "
            "successful changes to it were not kept: edit the version shown now."
        )
        retry_text = f"{retry.text}\n{note}"
        notices.append(
            Notice(
                "retry",
                f"{dropped} changed since the failed answer; its successful edits there are "
                "dropped from the retry.",
            )
        )

    files = [context_file(entry, text) for entry, text in entries]
    pending = [
        msgspec.structs.replace(pending_output(output, text), choosing=choosing[path])
        for path, (output, text) in outputs.items()
        if path not in partial
    ]
    pending += [
        PendingOutput(path=out.path, content=out.content, file_id=out.file_id, added=out.added)
        for out in ([] if retry is None else retry.outputs)
    ]
    prompt = assemble_prompt(
        PromptInput(
            user_text=latest,
            files=files,
            outputs=pending,
            history=past,
            retry_context=retry_text,
            tool_prompt=edit_prompt(mode) if edit_format != "none" else "",
            tools=tools_for_mode(mode) if edit_format == "tools" else [],
            instructions=instructions or Instructions(),
            edit_format=edit_format,
            global_chat=global_chat,
            cache_marks=config.cache and explicit_cache(config.provider, config.model),
            follow_edits=config.follow_edits,
        )
    )
    preset = preset_for(config.provider.preset, config.provider.base_url)
    too_large = None if model is None else over_context(prompt, model.context_length)
    if model is not None and too_large is None:
        check = check_context(
            prompt.total_tokens, model.context_length, model.max_completion_tokens
        )
        if check.level != "ok" and check.message:
            notices.append(Notice(f"context_{check.level}", check.message))
    anthropic = api_of(config.provider) == "anthropic"
    request = chat_request(
        prompt,
        config.model,
        reasoning_effort=config.reasoning_effort,
        provider=config.provider_preferences,
        prompt_cache_key=chat_id if config.cache and preset.cache_key else None,
        # Anthropic's API wants a cap on every answer; the others leave it to the model.
        max_tokens=max_tokens_for(model.max_completion_tokens if model else None)
        if anthropic
        else None,
        adaptive_thinking=anthropic and model is not None and bool(model.adaptive_thinking),
    )
    return Turn(
        request=request,
        prompt=prompt,
        edit_format=edit_format,
        mode=mode,
        bases=bases,
        files=_apply_files(bases, partial, {e.path for e, _ in entries if not e.facts.whole_file}),
        partial=partial,
        notices=notices,
        too_large=too_large,
        no_images=unreadable_images(prompt, takes_images(model, preset)),
    )


def _apply_files(
    bases: dict[str, EditBase], partial: dict[str, str], quoted: set[str]
) -> dict[str, FileState]:
    """The version each path's edits start from: the partial version, else the pending output,
    else the snapshot. A path the chat only quotes (a section) is read-only."""
    files = {path: FileState(content=None, writable=False) for path in quoted}
    for path, base in bases.items():
        files[path] = FileState(content=base.content, base=base.base, writable=base.writable)
    for path, content in partial.items():
        files[path] = FileState(content=content, base="pending_output", writable=True)
    return files

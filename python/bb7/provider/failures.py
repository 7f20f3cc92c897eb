"""How a request to the provider fails, worded for a person: one place for every message the
client gives about an HTTP status, a provider's error object, a time limit or a broken
connection, and for what is retried.

`Failure` is an attempt's failure as the client's worker sees it (kind, message, whether it may
be retried, how long the server asked to wait); `HttpProblem` is a failed non-streaming request
(the models list, a server's own API). `Wording` words them for one provider: a server on this
machine is named with its address and what to look at (`Preset.check`), any other is "The
provider"; the API key never reaches a message. Not for: the failures of an answer's edits
(`bb7.chat.failures`) or the time limits themselves (`bb7.provider.attempt`).
"""

from __future__ import annotations

import email.utils
import time
from typing import Literal
from urllib.parse import urlsplit

import httpx
import msgspec

from bb7.provider.config import ProviderConfig
from bb7.provider.events import ErrorKind
from bb7.provider.keys import ApiKey, redact
from bb7.provider.presets import Preset
from bb7.provider.wire import ERROR_BODY_DECODER, ERROR_OBJECT_DECODER, ErrorObject

# Of an error body, at most this much is read and kept.
ERROR_BODY_LIMIT = 64 * 1024
_RETRY_STATUSES = frozenset({408, 409, 425, 429})
# Anthropic's error kinds that a later attempt may not meet (529, 429, 500, 504 as statuses).
_RETRY_TYPES = frozenset({"overloaded_error", "rate_limit_error", "api_error", "timeout_error"})
_OVERLOADED = 529
_LATER = "Send again in a moment, or pick another model."
_KEPT = " The partial answer is kept; send again to get a complete one."

# Which time limit ended an attempt: no progress for `Timeouts.idle`, or `Timeouts.total`.
Expiry = Literal["idle", "deadline"]


class HttpProblem(msgspec.Struct, frozen=True):
    """A failed non-streaming request (the models list)."""

    kind: ErrorKind
    message: str
    status: int | None = None


class Failure(msgspec.Struct, frozen=True):
    """An attempt that failed: what the stream's `StreamError` will say, and whether another
    attempt may follow (only before the first delta, see `bb7.provider.attempt`)."""

    kind: ErrorKind
    message: str
    status: int | None = None
    provider_error: str | None = None
    retry_after: float | None = None
    retryable: bool = False


class Wording:
    """The messages of one client's failures: who failed, what to check, the key redacted."""

    def __init__(self, config: ProviderConfig, preset: Preset, api_key: ApiKey | None) -> None:
        self.config = config
        self.preset = preset
        self.api_key = api_key

    def redact(self, text: str) -> str:
        return redact(text, self.api_key)

    def who(self) -> str:
        """Who failed, for a message: a named server on this machine by name and address (its
        user knows which process to look at), any other as "The provider"."""
        if self.preset.local and self.preset.name != "custom":
            return f"{self.preset.title} at {urlsplit(self.config.base_url).netloc}"
        return "The provider"

    def local_check(self) -> str:
        """What to look at when a server on this machine fails, as a sentence ("" otherwise)."""
        if not self.preset.local or not self.preset.check:
            return ""
        check = self.preset.check
        return f" {check[0].upper()}{check[1:]}."

    def transport(self, exc: Exception) -> str:
        """The server could not be reached."""
        host = urlsplit(self.config.base_url).netloc
        detail = self.redact(str(exc)) or type(exc).__name__
        if self.preset.local:
            named = "" if self.preset.name == "custom" else f" ({self.preset.title})"
            return (
                f"Could not reach {host}{named}: {detail}. Is the server running? Start it, or "
                "point the base URL to where it runs."
            )
        return f"Could not reach {host}: {detail}. Check the network and the base URL."

    def http(self, status: int, headers: httpx.Headers, body: bytes) -> Failure:
        """An HTTP error status, with the provider's own words from its body."""
        raw = self.redact(body[:ERROR_BODY_LIMIT].decode("utf-8", errors="replace")).strip()
        detail = _error_detail(body) or raw[:300] or "no details"
        # One line: an HTML error page or a message with line breaks would split the message.
        detail = " ".join(self.redact(detail).split())
        retry_after = _retry_after(headers.get("retry-after"))
        where = f"HTTP {status}: {detail}"
        kind: ErrorKind
        if status in (401, 403):
            kind = "auth"
            if self.api_key is None:
                # Only a server that needs no key by default gets none: no variable is read
                # for it, so the hint names the setting.
                hint = (
                    "No API key was sent: set provider.api_key to an environment variable "
                    "name, cmd:COMMAND or file:PATH."
                )
            else:
                hint = f"Check the key from {self.api_key.source}."
            message = f"The provider refused the request ({where}). {hint}"
        elif status == 402:
            kind = "payment"
            message = f"The provider wants credits ({where}). Add credits or pick a cheaper model."
        elif status == 429:
            kind = "rate_limited"
            message = f"The provider is rate limiting ({where}). {_LATER}"
        elif status == _OVERLOADED:
            kind = "server"
            message = f"{self.who()} is overloaded ({where}). {_LATER}"
        elif status >= 500 or status in _RETRY_STATUSES:
            kind = "server"
            then = self.local_check() if self.who() != "The provider" else f" {_LATER}"
            message = f"{self.who()} had a server error ({where}).{then}"
        elif status == 404:
            kind = "bad_request"
            message = f"Not found ({where}). Check the model name and the base URL."
        else:
            kind = "bad_request"
            message = f"{self.who()} rejected the request ({where})."
        retryable = status >= 500 or status in _RETRY_STATUSES
        return Failure(kind, message, status, raw or None, retry_after, retryable)

    def provider_error(self, raw: bytes, emitted: bool) -> Failure:
        """An error object inside the stream (`emitted`: output had been delivered)."""
        verbatim = self.redact(raw.decode("utf-8", errors="replace"))
        try:
            obj = ERROR_OBJECT_DECODER.decode(raw)
        except msgspec.DecodeError:
            obj = None
        code: int | str | None = None
        named = None
        if isinstance(obj, ErrorObject):
            text, code, named = obj.message or verbatim, obj.code, obj.type
        else:
            text = obj or verbatim
        suffix = f" (code {code})" if code is not None else f" ({named})" if named else ""
        who = self.who()
        check = self.local_check() if who != "The provider" else ""
        message = self.redact(f"{who} reported an error: {text}{suffix}.{check}")
        if emitted:
            message += " The partial answer is kept."
        # OpenRouter reports upstream overload and rate limits this way once the HTTP status is
        # already sent; before any output such an error is as retryable as the status would be.
        # Anthropic's `error` event names the kind its HTTP status would have been.
        status = code if isinstance(code, int) else None
        retryable = named in _RETRY_TYPES or (
            status is not None and (status >= 500 or status in _RETRY_STATUSES)
        )
        return Failure("provider", message, status, verbatim, retryable=retryable)

    def expired(self, why: Expiry, quiet_bytes: bool, emitted: bool) -> Failure:
        """A time limit ended the attempt: say which, and what had arrived (`quiet_bytes`:
        keep-alive comments only)."""
        timeouts = self.config.timeouts
        who = self.who()
        if why == "deadline":
            message = f"The answer took longer than the overall limit of {timeouts.total:g} s."
        elif quiet_bytes:
            message = (
                f"{who} sent only keep-alive comments, no answer, for {timeouts.idle:g} s "
                "(the idle limit)."
            )
        else:
            message = f"{who} sent nothing for {timeouts.idle:g} s (the idle limit)."
            if who != "The provider":
                message += (
                    f"{self.local_check()} A slow model may need a longer provider.idle_timeout."
                )
        if emitted:
            message += _KEPT
        retry = why == "idle" and self.config.retry.retry_idle
        return Failure("timeout", message, retryable=retry)

    def closed(self) -> str:
        """The stream ended without a finish. A server on this machine that does that has
        usually crashed or run out of memory: say so, and what to look at."""
        crashed = " (did it crash or run out of memory?)" if self.preset.local else ""
        return (
            f"{self.who()} closed the connection before the response was complete"
            f"{crashed}.{self.local_check()}"
        )

    def unfinished(self, emitted: bool) -> Failure:
        """The stream ended with neither a finish reason nor `[DONE]`."""
        kept = " The partial answer is kept." if emitted else ""
        return Failure("connection", self.closed() + kept, retryable=True)

    def broken(
        self, kind: ErrorKind, exc: httpx.HTTPError, emitted: bool, connect_timeout: float
    ) -> Failure:
        """The connection timed out or broke (`connect_timeout`: the attempt's, in seconds)."""
        if isinstance(exc, httpx.ConnectTimeout):
            message = (
                f"Connecting to {urlsplit(self.config.base_url).netloc} timed out after "
                f"{connect_timeout:g} s."
            )
        elif kind == "timeout":
            message = (
                f"The provider sent nothing for {self.config.timeouts.read:g} s (read timeout)."
            )
        elif self.preset.local and not isinstance(exc, httpx.ConnectError):
            message = self.closed()
        elif emitted:
            detail = self.redact(str(exc)) or type(exc).__name__
            message = f"The connection broke mid-response: {detail}."
        else:
            message = self.transport(exc)
        if emitted:
            message += _KEPT
        return Failure(kind, message, retryable=True)


def cancelled() -> Failure:
    return Failure("cancelled", "Response cancelled by the user.")


def with_message(failure: Failure, message: str) -> Failure:
    return msgspec.structs.replace(failure, message=message)


def internal(exc: Exception) -> Failure:
    """A bug in the worker: the caller still gets its terminal event."""
    return Failure("protocol", f"Internal error while streaming: {exc!r}")


def malformed(exc: Exception) -> Failure:
    return Failure("protocol", f"The provider sent a malformed stream: {exc}.")


def too_large(limit: int) -> Failure:
    return Failure(
        "too_large",
        f"The answer grew past {limit // (1024 * 1024)} MB, more than bb7 reads: it stopped "
        "reading, and nothing of it is applied. Ask for a smaller change.",
    )


def ended_with_error() -> Failure:
    return Failure(
        "provider",
        "The provider ended the response with an error and gave no details. "
        "Send again, or pick another model.",
    )


def _error_detail(body: bytes) -> str | None:
    """The human part of an error body: `error.message` (after Anthropic's kind of error,
    `invalid_request_error: ...`), `error` or `message`."""
    try:
        parsed = ERROR_BODY_DECODER.decode(body)
    except msgspec.DecodeError:
        return None
    if isinstance(parsed.error, ErrorObject) and parsed.error.message:
        if parsed.type == "error" and parsed.error.type:
            return f"{parsed.error.type}: {parsed.error.message}"
        return parsed.error.message
    if isinstance(parsed.error, str) and parsed.error:
        return parsed.error
    return parsed.message


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())

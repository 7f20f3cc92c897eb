"""Files that look like secrets (keys, tokens, `.env`): bb7 asks before adding one. By name
(`.env*`, `*.pem`, `*.key`, `id_rsa*` and the other ssh keys) or by contents that match a
common key format. A guard against mistakes, not a scanner: it may miss secrets.
"""

from __future__ import annotations

import re

_NAMES = (
    (re.compile(r"\.env(\..*)?"), "an .env file"),
    (re.compile(r".*\.(pem|key|p12|pfx)"), "a key file"),
    (re.compile(r"id_(rsa|dsa|ecdsa|ed25519)(\..*)?"), "an ssh key"),
)

_CONTENTS = (
    (re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----"), "a private key"),
    (re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"), "an AWS access key"),
    (re.compile(r"\bsk-(proj-|ant-)?[A-Za-z0-9_-]{20,}"), "an API key (sk-…)"),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}"), "a GitHub token"),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), "a Slack token"),
)


def secret_reason(name: str, text: str | None = None) -> str | None:
    """Why the file `name` (its last component is what counts) with contents `text` looks like
    a secret ("an ssh key", "an AWS access key"), or None."""
    base = name.rsplit("/", 1)[-1]
    for pattern, reason in _NAMES:
        if pattern.fullmatch(base):
            return reason
    if text:
        for pattern, reason in _CONTENTS:
            if pattern.search(text):
                return f"it holds {reason}"
    return None

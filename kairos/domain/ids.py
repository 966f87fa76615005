"""Identifiers: validation of agent, user and session ids; stream and event ids.

Ids reach file names (``memory/<agent>/users/<user>/``) and log entries, so
they are checked *before* any filesystem call: one safe character class, no
``..``, no separators, bounded length.  Stream ids are uuid5 of the scope so
that every process derives the same stream for the same agent or pair without
a lookup, and they carry nothing but the ids themselves.
"""

from __future__ import annotations

import functools
import re
import uuid

from kairos.errors import BadInput

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}")

# A fixed namespace: changing it would move every stream of every home.
KAIROS_NAMESPACE = uuid.UUID("6a1d3f0e-5b7c-5e2a-9c41-0d6f4b8e2a17")


def check_id(value: str | None, what: str) -> str:
    """Return ``value`` if it is a valid id, else raise :class:`BadInput`.

    :raises BadInput: when the id is missing, too long, has a character outside
        ``[A-Za-z0-9._@+-]``, starts with a punctuation mark or contains ``..``.
    """
    if value is None or value == "":
        raise BadInput(f"{what} id is missing")
    if not isinstance(value, str):
        raise BadInput(f"{what} id must be a string")
    if ID_PATTERN.fullmatch(value) is None or ".." in value:
        shown = value if len(value) <= 40 else value[:40] + "…"
        raise BadInput(
            f"invalid {what} id {shown!r}: use 1-128 of A-Z a-z 0-9 . _ @ + -, "
            "starting with a letter or digit, without '..'"
        )
    return value


@functools.lru_cache(maxsize=4096)  # every write names its stream: hash once
def agent_stream_id(agent: str) -> uuid.UUID:
    """The stream that holds an agent's own files (SOUL, ABOUT, TOOLS)."""
    return uuid.uuid5(KAIROS_NAMESPACE, f"agent:{agent}")


@functools.lru_cache(maxsize=65536)
def pair_stream_id(agent: str, user: str) -> uuid.UUID:
    """The stream of one agent+user pair (USER, MEMORY); '/' cannot occur in ids."""
    return uuid.uuid5(KAIROS_NAMESPACE, f"pair:{agent}/{user}")


def event_id(stream_id: uuid.UUID, version: int) -> str:
    """A deterministic event id: one event per (stream, version) can ever commit.

    Deterministic ids let the sample home regenerate byte for byte and let a
    rebuild from the logs give back the very same ids.
    """
    return str(uuid.uuid5(stream_id, str(version)))

"""Encrypted content: memory text encrypted per stream, inside the events.

When a home encrypts (``[privacy] encrypt = true``), every piece of memory
content an event carries — what was written, a retraction's reason, session
notes, a dream's lines, what it dropped and its report, the lines a
publication or a rollback sets — is *encrypted* before the event is recorded: a
string ``~kx1:<key id>:<characters>:<ciphertext>``, AES-256-GCM under the
stream's own data key (:mod:`kairos.engine.keyring`).  The event keeps the
encrypted string for good: the hash chain covers it, the dated logs show it,
snapshots hold it.  So erasing a person is destroying their streams' keys —
no event and no log line changes, every chain still verifies — and a copy of
the event store or the logs without the keys reveals no memory content.

Only the read side decrypts encrypted strings, with the keys it has
(:func:`decrypt_event`): a string whose key was destroyed decrypts to nothing, and
whatever held it (a line, a reason) is left out.  The write side never
needs the plaintext back: an encrypted string records its plaintext's length in
characters, which is all the size limits read (:func:`text_len`).

Identifiers, times, actors, file names and hashes stay in clear: they are
what makes the history verifiable and auditable after an erasure.  This
module does no I/O and holds no key: the engine passes the functions in.

The read model, which holds the decrypted text for reading and search,
keeps it *sealed* at rest: ``~ks1:<key id>:<ciphertext>``, AES-SIV under a
key derived from the same stream key (:class:`kairos.engine.keyring.Sealer`).
AES-SIV is deterministic — the same text seals the same way — so the read
model stays a function of the events (a rebuild writes the same rows), and
an erasure, which destroys the stream's key, unseals nothing more either.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from copy import copy as shallow_copy
from typing import Any
from uuid import UUID

from kairos.domain.kinds import EventType

PREFIX = "~kx1:"

Encrypt = Callable[[str], str]
Decrypt = Callable[[str], str | None]  # None: the key is gone (erased)
# Decrypt a text of a stream: keys are the stream's own (a ciphertext copied
# into another stream never decrypts there).
StreamDecrypt = Callable[[str, UUID], str | None]
# The one form of an encrypted text (a plain text that merely starts with the
# prefix is not one, and is never parsed as one).
FORM = re.compile(r"~kx1:([0-9a-f]{16}):([0-9]+):([A-Za-z0-9_-]+)")


SEALED = "~ks1:"
SEALED_FORM = re.compile(r"~ks1:([0-9a-f]{16}):([A-Za-z0-9_-]+)")


def is_encrypted(value: object) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX) and FORM.fullmatch(value) is not None


def envelope(kid: str, chars: int, blob: str) -> str:
    return f"{PREFIX}{kid}:{chars}:{blob}"


def parts(value: str) -> tuple[str, int, str]:
    """(key id, characters, ciphertext) of an encrypted string.

    :raises ValueError: it is not one.
    """
    m = FORM.fullmatch(value)
    if m is None:
        raise ValueError("not an encrypted text")
    return m.group(1), int(m.group(2)), m.group(3)


def text_len(text: str) -> int:
    """The length of a text in characters, encrypted or not (the size limits
    count the plaintext, which an encrypted string records)."""
    if text.startswith(PREFIX) and (m := FORM.fullmatch(text)) is not None:
        return int(m.group(2))
    return len(text)


# -- which fields are content ----------------------------------------------------
# Scalar text fields, by event kind.
TEXT_FIELDS: dict[EventType, tuple[str, ...]] = {
    EventType.WRITTEN: ("text",),
    EventType.RETRACTED: ("reason",),
    EventType.SESSION_ENDED: ("notes",),
    EventType.REJECTED: ("reason",),
    EventType.REFUSED: ("reason",),
    EventType.ROLLED_BACK: ("reason",),
}
# The event types whose own text (the event index's) is memory content.
CONTENT_TYPES = frozenset(kind.value for kind in TEXT_FIELDS)
# Fields encrypted whole, as JSON: nothing on the write side reads inside them.
BLOB_FIELDS: dict[EventType, tuple[str, ...]] = {EventType.PROPOSED: ("dropped", "report")}
_EMPTY_BLOB: dict[str, Any] = {"dropped": [], "report": {}}


def encrypt_payload(kind: EventType, payload: dict[str, Any], encrypt: Encrypt) -> dict[str, Any]:
    """The payload with its content encrypted (a new dict), every text
    through ``encrypt``, which keeps as it is only a text already encrypted
    under one of this stream's own keys (a publication in the command that
    made its proposal carries the proposal's lines): anything else that
    merely looks encrypted is a user's text, and is encrypted as such."""
    out = dict(payload)
    text = encrypt

    for name in TEXT_FIELDS.get(kind, ()):
        if isinstance(out.get(name), str):
            out[name] = text(out[name])
    for name in BLOB_FIELDS.get(kind, ()):
        out[name] = encrypt(json.dumps(out.get(name), sort_keys=True, ensure_ascii=False))
    if kind is EventType.PROPOSED:
        out["files"] = {name: {**f, "lines": [[text(t), *rest] for t, *rest in f["lines"]]}
                        for name, f in out["files"].items()}
    elif kind is EventType.APPROVED:
        out["contents"] = {name: _encrypt_segments(segs, text)
                           for name, segs in out["contents"].items()}
    elif kind is EventType.ROLLED_BACK:
        out["segments"] = _encrypt_segments(out["segments"], text)
    return out


def _encrypt_segments(segments: list[list[Any]], text: Callable[[str], str]) -> list[list[Any]]:
    return [[s[0], text(s[1]), *s[2:]] for s in segments]


def _decrypt_segments(segments: list[list[Any]], index: int, decrypt: Decrypt) -> list[list[Any]]:
    """The segments whose text decrypts, decrypted; the others (erased) left out."""
    out = []
    for s in segments:
        t = s[index]
        if is_encrypted(t):
            t = decrypt(t)
            if t is None:
                continue
            s = [*s[:index], t, *s[index + 1:]]
        out.append(s)
    return out


def decrypted_fields(kind: EventType, get: Callable[[str], Any], decrypt: Decrypt
                  ) -> dict[str, Any]:
    """The content fields of an event that change when decrypted: each encrypted
    text decrypted (None when its key is gone), each blob decoded (empty when
    gone), each line or segment decrypted or left out.  Empty for an event with
    nothing encrypted, so an unencrypted home pays one lookup per event."""
    changed: dict[str, Any] = {}
    for name in TEXT_FIELDS.get(kind, ()):
        value = get(name)
        if is_encrypted(value):
            changed[name] = decrypt(value)
    for name in BLOB_FIELDS.get(kind, ()):
        value = get(name)
        if is_encrypted(value):
            plain = decrypt(value)
            changed[name] = _EMPTY_BLOB[name] if plain is None else json.loads(plain)
    if kind is EventType.PROPOSED:
        files = get("files")
        if any(is_encrypted(t) for f in files.values() for t, *_ in f["lines"]):
            changed["files"] = {name: {**f, "lines": _decrypt_segments(f["lines"], 0, decrypt)}
                                for name, f in files.items()}
    elif kind is EventType.APPROVED:
        contents = get("contents")
        if any(is_encrypted(s[1]) for segs in contents.values() for s in segs):
            changed["contents"] = {name: _decrypt_segments(segs, 1, decrypt)
                                   for name, segs in contents.items()}
    elif kind is EventType.ROLLED_BACK:
        segments = get("segments")
        if any(is_encrypted(s[1]) for s in segments):
            changed["segments"] = _decrypt_segments(segments, 1, decrypt)
    return changed


def decrypt_event(event: Any, decrypt: StreamDecrypt, *, erased: bool = False) -> Any:
    """The event with its content decrypted (itself when nothing was
    encrypted): a domain event (a frozen dataclass) or a light struct of the
    read side.  ``erased``: the event came before an erasure of its stream,
    and nothing of it decrypts, whatever keys still exist."""
    stream = event.originator_id

    def text(value: str) -> str | None:
        return None if erased else decrypt(value, stream)

    changed = decrypted_fields(event.kind, lambda name: getattr(event, name, None), text)
    if not changed:
        return event
    if dataclasses.is_dataclass(event):
        # Domain events are frozen: a copy, made without running __init__ checks.
        copy = object.__new__(type(event))
        state: dict[str, Any] = vars(copy)
        state.update(event.__dict__)
        state.update(changed)
        return copy
    copy = shallow_copy(event)  # a light struct: its fields can be set
    for name, value in changed.items():
        setattr(copy, name, value)
    return copy


# -- encrypting while a command records ------------------------------------------------
# How to encrypt for the stream a command is recording to, set by the engine around
# the command (kairos.engine.engine.Engine.execute) and read by
# MemoryStream._record: the aggregate stays free of keys, and its snapshots
# of anything but encrypted text.
ENCRYPTING: ContextVar[Encrypt | None] = ContextVar("kairos_encrypting", default=None)


@contextmanager
def encrypting(encrypt: Encrypt | None) -> Iterator[None]:
    token = ENCRYPTING.set(encrypt)
    try:
        yield
    finally:
        ENCRYPTING.reset(token)

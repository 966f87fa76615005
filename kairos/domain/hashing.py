"""The per-stream hash chain.

Every event carries ``prev`` (the hash of the event before it in its stream,
or 64 zeros for the first) and ``hash``: sha256 over a canonical JSON
serialization (sorted keys, no spaces, UTF-8) of the event's type, stream,
version, time, id, ``prev`` and payload.  Changing, dropping, inserting or
reordering any event of a stream breaks the chain at that point, and since
the log entries carry the same hashes, a log and a store cannot silently
disagree.  The global position is *not* hashed: it is assigned by the store
at commit, after the event (and its hash) exist.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

GENESIS = "0" * 64


def format_time(ts: datetime) -> str:
    """The one textual form of a timestamp: UTC, microseconds, a trailing Z,
    and always a four-digit year (``strftime("%Y")`` drops the zeros of a year
    before 1000 on glibc, which would make the text unparsable and unsortable)."""
    t = ts.astimezone(UTC)
    return (f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:"
            f"{t.second:02d}.{t.microsecond:06d}Z")


_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
                   r"\.([0-9]{6})Z")


def parse_time(text: str) -> datetime:
    """Inverse of :func:`format_time`: exactly its form (a restore parses a
    time per log entry, and ``strptime`` was a tenth of the parse).

    :raises ValueError: ``text`` is not in that form, or not a real time.
    """
    m = _TIME.fullmatch(text)
    if m is None:
        raise ValueError(f"time data {text!r} is not YYYY-MM-DDTHH:MM:SS.ffffffZ")
    y, mo, d, h, mi, s, us = map(int, m.groups())
    return datetime(y, mo, d, h, mi, s, us, tzinfo=UTC)


def canonical(obj: Any) -> bytes:
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


def chain_hash(
    type_name: str,
    stream: UUID,
    version: int,
    time: datetime,
    event_id: str,
    prev: str,
    payload: dict[str, Any],
) -> str:
    """The hash of one event, chained to ``prev``."""
    return text_hash(type_name, str(stream), version, format_time(time), event_id, prev, payload)


def text_hash(type_name: str, stream: str, version: int, time: str, event_id: str, prev: str,
              payload: dict[str, Any]) -> str:
    """:func:`chain_hash` of a stream id and a time already in their text
    forms (``str(UUID)``, :func:`format_time`), as a log entry gives them:
    a restore hashes entries without making a UUID or a datetime."""
    body = {
        "type": type_name,
        "stream": stream,
        "version": version,
        "time": time,
        "event": event_id,
        "prev": prev,
        "data": payload,
    }
    return hashlib.sha256(canonical(body)).hexdigest()

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


def parse_time(text: str) -> datetime:
    """Inverse of :func:`format_time`."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


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
    body = {
        "type": type_name,
        "stream": str(stream),
        "version": version,
        "time": format_time(time),
        "event": event_id,
        "prev": prev,
        "data": payload,
    }
    return hashlib.sha256(canonical(body)).hexdigest()

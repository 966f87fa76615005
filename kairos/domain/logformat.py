"""The dated log format: render events as markdown entries and parse them back.

See ``docs/log-format.md`` for the specification.  In short, a day file is::

    # Kairos log 2026-11-02
    <blank>
    ## 000042 MemoryWritten
    <blank>
    - time: 2026-11-02T09:15:03.123456Z
    - stream: 3f2e…-… v7
    - event: 0b9a…-…
    - agent: ada
    - text:
    <blank>
          I like green tea.
    <blank>
    - prev: e3b0…
    - hash: 9f86…
    <blank>

Free text is never written where it could be taken for structure: it goes in
an indented block, six spaces deep, with backslashes, carriage returns and
control characters escaped, so no content can start a line with ``## ``,
close a block, or hide a line break.  Parsing a rendered entry gives back the
event exactly, for any text.  This module does no I/O.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from kairos.domain.events import EVENT_TYPES, DomainEvent, MemoryStream, payload_fields
from kairos.domain.hashing import format_time, parse_time
from kairos.errors import KairosError

INDENT = "      "  # six spaces: a code block inside the list item, in markdown
JSON_INLINE = 100  # longer JSON values (a dream's lines) go in a block, pretty-printed
SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+:/-]*")
HEADER = re.compile(r"## (\d+) ([A-Za-z]+)")
FIELD = re.compile(r"- ([a-z_]+)(?: \((json)\))?:(?: (.*))?")
HEX64 = re.compile(r"[0-9a-f]{64}")
_ESCAPE = re.compile(r"[\\\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
_UNESCAPE = re.compile(r"\\(\\|r|x[0-9a-f]{2}|u[0-9a-f]{4})")


class LogFormatError(KairosError, ValueError):
    """A log file does not parse; ``line`` is 1-based within the file (a
    check failed: exit status 1)."""

    def __init__(self, message: str, line: int):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.reason = message


@dataclass(frozen=True)
class Entry:
    """One parsed log entry: the event, its position, where it sits, and its
    ``mac`` line (None: the entry carries none)."""

    position: int
    event: DomainEvent
    line: int = 0
    mac: str | None = None


# The per-entry authentication: HMAC-SHA256, under a key kept outside the
# home, of the entry's text from its header to its hash line — position,
# type, every field.  Written as the entry's last field, ``- mac: <hex>``.
MAC_CONTEXT = b"kairos-entry-mac/1\n"


def entry_mac(key: bytes, body: str) -> str:
    """The MAC of an entry's ``body`` (its text up to the hash line's end)."""
    return hmac.new(key, MAC_CONTEXT + body.encode("utf-8"), hashlib.sha256).hexdigest()


def mac_holds(key: bytes, entry: Entry) -> bool:
    """Whether ``entry``'s mac is the one ``key`` gives its content."""
    body = render_entry(entry.position, entry.event)[:-1]  # without the final blank line
    return entry.mac is not None and hmac.compare_digest(entry.mac, entry_mac(key, body))


def file_header(day: str) -> str:
    return f"# Kairos log {day}\n\n"


def _escape_char(m: re.Match[str]) -> str:
    c = m.group(0)
    if c == "\\":
        return "\\\\"
    if c == "\r":
        return "\\r"
    return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"


def escape_line(line: str) -> str:
    return _ESCAPE.sub(_escape_char, line)


def _unescape_char(m: re.Match[str]) -> str:
    code = m.group(1)
    if code == "\\":
        return "\\"
    if code == "r":
        return "\r"
    return chr(int(code[1:], 16))


def unescape_line(line: str) -> str:
    return _UNESCAPE.sub(_unescape_char, line)


@functools.lru_cache(maxsize=4096)  # ids, file names, modes: the same few values
def _is_bare(value: str) -> bool:
    if SAFE.fullmatch(value) is None:
        return False
    try:  # a bare value must not read as a JSON literal (a number, true, null)
        json.loads(value)
    except ValueError:
        return True
    return False


def render_entry(position: int, event: DomainEvent, key: bytes | None = None) -> str:
    """Render one event as a log entry (ending in a blank line); with the
    entry key, its ``- mac:`` line too."""
    return render_parts(position, event.kind.value, format_time(event.timestamp),
                        str(event.originator_id), event.originator_version, event.event_id,
                        [(name, getattr(event, name)) for name in payload_fields(type(event))],
                        event.prev, event.hash, key)


def render_parts(position: int, type_name: str, time: str, stream: str, version: int,
                 event_id: str, payload: Iterable[tuple[str, Any]], prev: str, hash: str,
                 key: bytes | None = None) -> str:
    """:func:`render_entry` of an event given by its parts: the time and the
    stream id already in their text forms (:func:`format_time`,
    ``str(UUID)``), the payload as (name, value) in declaration order.  The
    one rendering: a restore checks entries against it without building
    events (:mod:`kairos.domain.logfast`)."""
    out = [f"## {position:06d} {type_name}", "", f"- time: {time}",
           f"- stream: {stream} v{version}", f"- event: {event_id}"]
    for name, value in payload:
        if value is None:
            continue
        if isinstance(value, str) and _is_bare(value):
            out.append(f"- {name}: {value}")
        elif isinstance(value, str):
            out.append(f"- {name}:")
            out.append("")
            out.extend(INDENT + escape_line(part) for part in value.split("\n"))
            out.append("")
        else:
            compact = json.dumps(value, sort_keys=True)
            if len(compact) <= JSON_INLINE:
                out.append(f"- {name} (json): {compact}")
            else:
                out.append(f"- {name} (json):")
                out.append("")
                pretty = json.dumps(value, sort_keys=True, indent=2)
                out.extend(INDENT + escape_line(part) for part in pretty.split("\n"))
                out.append("")
    out.append(f"- prev: {prev}")
    out.append(f"- hash: {hash}")
    if key is not None:
        out.append(f"- mac: {entry_mac(key, chr(10).join(out) + chr(10))}")
    out.append("")
    return "\n".join(out) + "\n"


def _event_from_fields(type_name: str, fields: dict[str, Any], line: int) -> DomainEvent:
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise LogFormatError(f"unknown event type {type_name!r}", line)
    try:
        stream_text, version_text = fields.pop("stream").split(" v")
        kwargs: dict[str, Any] = {
            "originator_id": UUID(stream_text),
            "originator_version": int(version_text),
            "timestamp": parse_time(fields.pop("time")),
            "event_id": fields.pop("event"),
            "prev": fields.pop("prev"),
            "hash": fields.pop("hash"),
        }
    except (KeyError, ValueError) as e:
        raise LogFormatError(f"entry is missing or has a bad field: {e}", line) from None
    names = payload_fields(cls)
    unknown = set(fields) - set(names)
    if unknown:
        raise LogFormatError(f"unknown field(s) {', '.join(sorted(unknown))}", line)
    for name in names:
        kwargs[name] = fields.get(name)
    if cls is MemoryStream.StreamOpened:
        kwargs["originator_topic"] = MemoryStream.TOPIC
    return cls(**kwargs)


def parse_entries(text: str, first_line: int = 1, stop: int | None = None) -> list[Entry]:
    """Parse consecutive entries (no file header).

    ``stop``: parse no entry that starts at or after this line (0-based in
    ``text``).  A reader that streams a file passes a piece of whole entries
    with the next entry's header line after it, so that an entry cut short
    at the end of the piece fails exactly as it would in the whole file.

    :raises LogFormatError: at the first line that is not a well-formed entry,
        including an entry cut short (a torn write).
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    else:
        raise LogFormatError("text does not end with a newline", first_line + len(lines) - 1)
    entries: list[Entry] = []
    i = 0
    n = len(lines)
    end = n if stop is None else min(n, stop)
    while i < end:
        start = i
        m = HEADER.fullmatch(lines[i])
        if m is None:
            raise LogFormatError("expected an entry header '## <position> <Type>'", first_line + i)
        position, type_name = int(m.group(1)), m.group(2)
        i += 1
        if i >= n or lines[i] != "":
            raise LogFormatError("expected a blank line after the header", first_line + i)
        i += 1
        fields: dict[str, Any] = {}
        while True:
            if i >= n:
                raise LogFormatError("entry ends before its hash line", first_line + i)
            fm = FIELD.fullmatch(lines[i])
            if fm is None:
                raise LogFormatError("expected a '- field: value' line", first_line + i)
            name, kind, value = fm.group(1), fm.group(2), fm.group(3)
            if name in fields:
                raise LogFormatError(f"field {name!r} given twice", first_line + i)
            i += 1
            if kind == "json" and value is not None:
                try:
                    fields[name] = json.loads(value)
                except ValueError:
                    raise LogFormatError(f"bad JSON in field {name!r}", first_line + i - 1) from None
            elif value is not None:
                fields[name] = value
            else:  # a block: blank, indented lines, blank (text, or JSON when marked)
                if i >= n or lines[i] != "":
                    raise LogFormatError("expected a blank line before a text block", first_line + i)
                i += 1
                parts = []
                while i < n and lines[i].startswith(INDENT):
                    parts.append(unescape_line(lines[i][len(INDENT):]))
                    i += 1
                if not parts or i >= n or lines[i] != "":
                    raise LogFormatError("text block is not closed by a blank line", first_line + i)
                i += 1
                fields[name] = "\n".join(parts)
                if kind == "json":
                    try:
                        fields[name] = json.loads(fields[name])
                    except ValueError:
                        raise LogFormatError(f"bad JSON in field {name!r}", first_line + i) from None
            if name == "hash":
                break
        mac = None
        if i < n and lines[i].startswith("- mac: "):
            mac = lines[i][7:]
            if HEX64.fullmatch(mac) is None:
                raise LogFormatError("mac is not 64 hex digits", first_line + i)
            i += 1
        if i >= n or lines[i] != "":
            raise LogFormatError("expected a blank line after the hash", first_line + i)
        i += 1
        if HEX64.fullmatch(str(fields.get("hash", ""))) is None:
            raise LogFormatError("hash is not 64 hex digits", first_line + i - 2)
        event = _event_from_fields(type_name, fields, first_line + start)
        entries.append(Entry(position, event, first_line + start, mac))
    return entries


def parse_day(text: str, day: str) -> list[Entry]:
    """Parse a whole day file, header included."""
    header = file_header(day)
    if not text.startswith(header):
        raise LogFormatError(f"expected the header '# Kairos log {day}'", 1)
    return parse_entries(text[len(header):], first_line=3)


def day_of(ts: datetime) -> str:
    """The UTC date of a time, ``YYYY-MM-DD`` (the first ten characters of
    :func:`format_time`, without formatting the rest)."""
    return ts.astimezone(UTC).date().isoformat()

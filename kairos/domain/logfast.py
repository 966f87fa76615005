"""Log entries read fast, for a restore: text to fields, checked by rendering.

A restore from the logs reads every entry once.  Parsing each into an event
(:func:`~kairos.domain.logformat.parse_entries`: a regular expression per
line, then the library's event object) was most of what a restore cost,
and a restore needs only the fields: to hash them, to store them, and to
know that the entry is exactly what the store will render to.

:func:`read_entry` takes the fields out of an entry's text with plain string
operations and trusts none of it: it renders the fields back
(:func:`~kairos.domain.logformat.render_parts`, the one rendering that
writes every entry) and accepts the entry only when that is the text, byte
for byte.  Parsing a rendered entry gives back exactly its fields
(``docs/log-format.md``), so an accepted entry holds what the full parser
would make of it (``tests/test_logformat.py`` and ``tests/test_restore.py``
check both halves for any text).  Anything else — another layout, a bad
time, a field too many, an unknown type — comes back as None, and the
caller parses that entry the slow way, which says what is wrong exactly as
before.  No I/O.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
from datetime import date
from json.encoder import encode_basestring
from typing import Any, NamedTuple

from kairos.domain.events import EVENT_TYPES, optional_fields, payload_fields
from kairos.domain.logformat import HEX64, entry_mac, render_parts, unescape_line

_STREAM = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}) v([0-9]+)")
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
                   r"\.[0-9]{6}Z")
# What a mac line adds at the end of an entry: "- mac: " + 64 hex digits + a newline.
_MAC_LINE = 7 + 64 + 1


class Fast(NamedTuple):
    """An entry read fast: its fields as text, as the log gives them."""

    position: int
    line: int  # 1-based, in its file
    type_name: str
    stream: str  # the stream id as ``str(UUID)`` gives it
    version: int
    time: str  # as :func:`~kairos.domain.hashing.format_time` gives it
    event_id: str
    prev: str
    hash: str
    payload: dict[str, Any]  # every payload field, in declaration order (absent: None)
    mac: str | None
    text: str  # the entry as logged, which is its rendering

    def content_hash(self) -> str:
        """The hash the entry's content gives (what its ``hash`` must be):
        :func:`~kairos.domain.hashing.chain_hash`'s canonical JSON, written
        out here with the JSON encoder's own string escaping (the keys in
        sorted order, optional fields left out while None)."""
        payload = self.payload
        optional = _OPTIONAL[self.type_name]
        data = ",".join(f'"{k}":{json_value(payload[k])}' for k in _SORTED[self.type_name]
                        if k not in optional or payload[k] is not None)
        body = (f'{{"data":{{{data}}},"event":{encode_basestring(self.event_id)},'
                f'"prev":{encode_basestring(self.prev)},"stream":"{self.stream}",'
                f'"time":"{self.time}","type":"{self.type_name}","version":{self.version}}}')
        return hashlib.sha256(body.encode("utf-8")).hexdigest()

    def mac_holds(self, key: bytes) -> bool:
        """:func:`~kairos.domain.logformat.mac_holds` of this entry."""
        if self.mac is None:
            return False
        body = self.text[:-1 - _MAC_LINE]  # up to the hash line's end
        return hmac.compare_digest(self.mac, entry_mac(key, body))


# Per type name: its payload fields sorted (the hash's order), and its optional ones.
_SORTED = {str(k): tuple(sorted(payload_fields(cls))) for k, cls in EVENT_TYPES.items()}
_OPTIONAL = {str(k): optional_fields(cls) for k, cls in EVENT_TYPES.items()}


def json_value(value: Any) -> str:
    """``value`` as compact JSON with sorted keys and no ASCII escaping: the
    form of :func:`~kairos.domain.hashing.canonical`."""
    if isinstance(value, str):
        return str(encode_basestring(value))
    if value is None:
        return "null"
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def read_entry(text: str, line: int) -> Fast | None:
    """The entry whose text (from its header line to its closing blank line,
    inclusive) is ``text``, or None when ``text`` is not exactly the
    rendering of an event's fields (see the module's docstring)."""
    lines = text.split("\n")
    if len(lines) < 9 or not text.startswith("## ") or not text.endswith("\n\n"):
        return None
    number, _, type_name = lines[0][3:].partition(" ")
    cls = EVENT_TYPES.get(type_name)
    if cls is None or not (number.isascii() and number.isdigit()):
        return None
    # Where a rendering puts them: time, stream and event first, then the
    # payload, then prev, hash and perhaps mac (a wrong guess fails the rendering).
    mac = lines[-3][7:] if lines[-3].startswith("- mac: ") else None
    last = len(lines) - (3 if mac is None else 4)  # the hash line
    time, stream_line, event_id = lines[2][8:], lines[3][10:], lines[4][9:]
    prev, hash_ = lines[last - 1][8:], lines[last][8:]
    m = _STREAM.fullmatch(stream_line)
    if m is None or not _valid_time(time) or HEX64.fullmatch(hash_) is None or (
            mac is not None and HEX64.fullmatch(mac) is None):
        return None
    try:
        fields = _fields(lines, 5, last - 1)
    except ValueError:
        return None
    names = payload_fields(cls)
    payload = {name: fields.pop(name, None) for name in names}
    if fields:  # a field the type does not have
        return None
    position, stream, version = int(number), m.group(1), int(m.group(2))
    rendered = render_parts(position, type_name, time, stream, version, event_id,
                            payload.items(), prev, hash_)
    if mac is not None:
        rendered = f"{rendered[:-1]}- mac: {mac}\n\n"
    if rendered != text:
        return None
    return Fast(position, line, type_name, stream, version, time, event_id, prev, hash_,
                payload, mac, text)


def _fields(lines: list[str], i: int, end: int) -> dict[str, Any]:
    """The ``- name: value`` fields of ``lines[i:end]``, blocks unescaped,
    JSON decoded: a loose reading, which the rendering then checks.

    :raises ValueError: a block is not closed, or a JSON value does not parse.
    """
    fields: dict[str, Any] = {}
    while i < end:
        name, inline, value = lines[i].partition(": ")
        if inline:
            i += 1
        else:  # "- name:", a blank line, indented lines, a blank line
            close = lines.index("", i + 2)
            name = name[:-1]
            value = "\n".join(lines[i + 2:close]).replace("\n      ", "\n")[6:]
            if "\\" in value:
                value = unescape_line(value)  # escapes never span lines
            i = close + 1
        if name.endswith(" (json)"):
            fields[name[2:-7]] = json.loads(value)
        else:
            fields[name[2:]] = value
    return fields


def _valid_time(time: str) -> bool:
    """Whether ``time`` is a real time in exactly the form ``format_time``
    gives (what :func:`~kairos.domain.hashing.parse_time` accepts), each
    day checked once."""
    return _TIME.fullmatch(time) is not None and _real_day(time[:10])


@functools.lru_cache(maxsize=1024)  # an entry's day: the same few in a file
def _real_day(day: str) -> bool:
    try:
        date.fromisoformat(day)
    except ValueError:
        return False
    return True

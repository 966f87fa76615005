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
would make of it.  Anything else — another layout, a bad time, a field too
many, a type the fast path does not take — comes back as None, and the
caller parses that entry the slow way, which says what is wrong exactly as
before.  No I/O.
"""

from __future__ import annotations

import hmac
import json
import re
from typing import Any, NamedTuple

from kairos.domain.events import EVENT_TYPES, optional_fields, payload_fields
from kairos.domain.hashing import parse_time, text_hash
from kairos.domain.logformat import HEX64, INDENT, entry_mac, render_parts, unescape_line

_STREAM = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}) v([0-9]+)")
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
        """The hash the entry's content gives (what its ``hash`` must be)."""
        optional = optional_fields(EVENT_TYPES[self.type_name])
        payload = self.payload
        if optional:
            payload = {k: v for k, v in payload.items() if v is not None or k not in optional}
        return text_hash(self.type_name, self.stream, self.version, self.time, self.event_id,
                         self.prev, payload)

    def mac_holds(self, key: bytes) -> bool:
        """:func:`~kairos.domain.logformat.mac_holds` of this entry."""
        if self.mac is None:
            return False
        body = self.text[:-1 - _MAC_LINE]  # up to the hash line's end
        return hmac.compare_digest(self.mac, entry_mac(key, body))


def read_entry(text: str, line: int) -> Fast | None:
    """The entry whose text (from its header line to its closing blank line,
    inclusive) is ``text``, or None when ``text`` is not exactly the
    rendering of an event's fields (see the module's docstring)."""
    lines = text.split("\n")
    if len(lines) < 10 or lines[-1] or lines[-2] or lines[1] or not text.startswith("## "):
        return None
    number, _, type_name = lines[0][3:].partition(" ")
    cls = EVENT_TYPES.get(type_name)
    if cls is None or not (number.isascii() and number.isdigit()):
        return None
    try:
        fields = _fields(lines)
        m = _STREAM.fullmatch(fields.pop("stream"))
        time, event_id = fields.pop("time"), fields.pop("event")
        prev, hash_, mac = fields.pop("prev"), fields.pop("hash"), fields.pop("mac", None)
        if m is None or HEX64.fullmatch(hash_) is None or (
                mac is not None and HEX64.fullmatch(mac) is None):
            return None
        parse_time(time)  # a real time, in exactly the form format_time gives
    except (KeyError, ValueError, IndexError, TypeError):
        return None
    names = payload_fields(cls)
    if not fields.keys() <= set(names):
        return None
    payload = {name: fields.get(name) for name in names}
    position, stream, version = int(number), m.group(1), int(m.group(2))
    rendered = render_parts(position, type_name, time, stream, version, event_id,
                            payload.items(), prev, hash_)
    if mac is not None:
        rendered = f"{rendered[:-1]}- mac: {mac}\n\n"
    if rendered != text:
        return None
    return Fast(position, line, type_name, stream, version, time, event_id, prev, hash_,
                payload, mac, text)


def _fields(lines: list[str]) -> dict[str, Any]:
    """The ``- name: value`` fields of an entry's lines (after its header and
    blank line, up to its closing blank line), blocks unescaped, JSON
    decoded: a loose reading, which the rendering then checks."""
    fields: dict[str, Any] = {}
    i, end = 2, len(lines) - 2
    while i < end:
        item = lines[i]
        if not item.startswith("- "):
            raise ValueError(item)
        name, inline, value = item[2:].partition(": ")
        if not inline:  # a block: blank, indented lines, blank
            name = item[2:-1]
            i += 2
            parts = []
            while lines[i].startswith(INDENT):
                parts.append(unescape_line(lines[i][6:]))
                i += 1
            value = "\n".join(parts)
        i += 1
        if name.endswith(" (json)"):
            name, value = name[:-7], json.loads(value)
        fields[name] = value
    return fields

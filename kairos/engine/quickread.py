"""A plain current read of one file on an SQLite home, with the standard library alone.

``kairos read`` is what an agent runtime shells out to before a turn, and
importing SQLAlchemy and eventsourcing is most of what the full read costs
(docs/benchmarks.md, "CLI start-up").  On an SQLite home the answer to a
read of a file *now* is one row of the read model, so this module answers
it with ``sqlite3``, ``json`` and ``tomllib`` — when, and only when, it can
tell that the full path (:meth:`kairos.memory.Memory.read` on a read-only
open) would give the very same answer.  Otherwise :func:`read_now` returns
None and the caller takes the full path, which gives the answer or the
error: a PostgreSQL home, a read model that lags the store (it cannot be
brought up without the event store's library), a read model with other
migrations than this code knows, a database that cannot be opened
read-only as is, bad ids or scope (the full path raises them after its
open, whose own errors come first), logs that do not end as expected.

Recovery.  A read-only open repairs nothing (``Engine.check``): a torn last
log entry is left for the next writable open to move aside, and the read
shows what the store holds.  It does check that the logs are not ahead of
the store and that their last whole entry is the store's event at its
position, and refuses to read (``Inconsistent``: run `kairos verify`) when
they are not.  Skipping those checks would be observable — a home whose
store was restored from an older backup would answer here and refuse on
the full path — so they are made here too, cheaply: every day file must
start with its header and end with a whole entry (or the header alone),
the highest position logged must not pass the store's, and the entry at
it must be, field for field, the store's event at that position (type,
stream, version, id, time, chain hashes, payload).  Then the full path's
check passes on the same entry; anything else (a torn tail included) falls
back, and the full path decides.  Skipping the *repair* of a torn tail is
what the full read path does as well: the torn entry's event is in the
store whatever its log says, and a write is acknowledged only once its
entry is whole, so the read shows every acknowledged write either way.

Consistency.  The logs are read first, then the database in one read
transaction (a snapshot): the read model's applied position, the store's
last notification id and the file's row.  Entries are appended after their
events commit, so every entry read is in that snapshot's store.  The read
model's generation (a rebuild's) does not matter to one row read in one
snapshot: the rebuild reloads the files and moves the position in one
transaction, and a position behind the store means a fall back.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from datetime import datetime
from typing import Any
from uuid import UUID

from kairos.domain.files import checked_scope
from kairos.domain.fold import size
from kairos.domain.hashing import parse_time
from kairos.domain.kinds import BASE_FIELDS, EventType
from kairos.engine.sqlitefiles import read_only_uri
from kairos.errors import KairosError
from kairos.home import (
    KEYS,
    check_home,
    day_files,
    load_entry_key,
    load_settings,
    resolve_home,
    store_url,
)
from kairos.ports import ReadResult

# The read-model migrations whose tables this module reads as they are; a
# database with others (older, or a newer Kairos's) is read by the full
# path.  tests/test_quickread.py checks this against migrations.MIGRATIONS.
MIGRATIONS = frozenset({"m001_initial", "m002_lighter_writes", "m003_faults_keys",
                        "m004_search", "m005_scoped_terms", "m006_shared_lines"})
# As kairos.engine.logread reads a day file's end: 4 KB, then 16 times more.
END_CHUNK = 4096
# The log format's lines (kairos.domain.logformat, which needs the event classes).
HEADER = re.compile(r"## (\d+) ([A-Za-z]+)")
FIELD = re.compile(r"- ([a-z_]+)(?: \((json)\))?:(?: (.*))?")
HEX64 = re.compile(r"[0-9a-f]{64}")
INDENT = "      "
_UNESCAPE = re.compile(r"\\(\\|r|x[0-9a-f]{2}|u[0-9a-f]{4})")
TYPE_NAMES = frozenset(t.value for t in EventType)

Fields = dict[str, Any]


def read_now(home: str | None, db: str | None, agent: str, user: str | None,
             file: str) -> ReadResult | None:
    """The file as :meth:`Memory.read` on a read-only open would return it
    now, or None when that cannot be told without the full path.

    :raises NotAHome: when ``home`` is not a Kairos home.
    :raises BadInput: a bad ``kairos.toml`` or entry key — the checks a
        ``Memory`` makes first, here in the same order.
    """
    path = resolve_home(home)
    check_home(path)
    settings = load_settings(path)
    url = store_url(path, db, settings)
    load_entry_key(path, settings)
    if not url.startswith("sqlite:///") or settings.privacy.encrypt or os.path.isdir(
            os.path.join(path, KEYS)):
        return None  # an encrypting home: the full path, which asks for the master key
    try:
        spec = checked_scope(agent, user, file)
    except KairosError:
        return None
    try:
        tail = log_tail(os.path.join(path, "logs"))
        row = _current_row(url[len("sqlite:///"):], tail, agent, user, spec.name)
    except (OSError, ValueError, sqlite3.Error, KairosError):  # in doubt: the full path
        return None
    if row is None:
        return None
    content, version = row
    return ReadResult(agent, user, spec.name, content, size(content or ""),
                      settings.limit_of(spec), spec.hard, version)


def _current_row(db_path: str, tail: tuple[int, str, Fields] | None, agent: str,
                 user: str | None, name: str) -> tuple[str | None, int | None] | None:
    """(content or None, version or None) of the file, from one snapshot of
    the database; None when the read model lags, its migrations are not
    the known ones, or the logs' last entry is not the store's event."""
    if tail is None or not os.path.exists(db_path):
        return None
    conn = sqlite3.connect(read_only_uri(db_path), uri=True, timeout=30,
                           isolation_level=None)
    try:
        conn.execute("BEGIN")
        applied = {r[0] for r in conn.execute("SELECT name FROM memory_migrations")}
        at = conn.execute("SELECT position FROM memory_positions WHERE name = 'index'").fetchone()
        stored = conn.execute("SELECT MAX(rowid) FROM stored_events").fetchone()[0] or 0
        if applied != MIGRATIONS or at is None or at[0] < stored:
            return None
        position, type_name, fields = tail
        if position > stored:
            return None
        if position:
            event = conn.execute("SELECT originator_id, originator_version, topic, state "
                                 "FROM stored_events WHERE rowid = ?", (position,)).fetchone()
            if event is None or not same_event(type_name, fields, event):
                return None
        found = conn.execute("SELECT content, version FROM memory_files "
                             "WHERE agent_id = ? AND user_id = ? AND file = ?",
                             (agent, user or "", name)).fetchone()
        conn.execute("COMMIT")
    finally:
        conn.close()
    if found is None or not found[0]:
        return None, None
    return str(found[0]), int(found[1])


# -- the logs' end -----------------------------------------------------------------
def log_tail(root: str) -> tuple[int, str, Fields] | None:
    """(position, type, fields) of the logs' last entry — (0, "", {}) when
    none — or None when a day file does not start with its header or does
    not end with a whole entry (torn, or not parsed here): the full path
    decides those."""
    best: tuple[int, str, Fields] = (0, "", {})
    for day, path in day_files(root):
        last = last_entry(path, day)
        if last is None:
            return None
        if last[0] > best[0]:
            best = last
    return best


def last_entry(path: str, day: str) -> tuple[int, str, Fields] | None:
    """A day file's last entry, reading its start (the header) and its end
    backwards as :func:`kairos.engine.logread.last_position` does; (0, "",
    {}) for a header alone; None for anything else."""
    header = f"# Kairos log {day}\n\n".encode()
    with open(path, "rb") as f:
        if f.read(len(header)) != header:
            return None
        end = f.seek(0, os.SEEK_END)
        chunk = END_CHUNK
        while True:
            start = max(0, end - chunk)
            f.seek(start)
            data = f.read(end - start)
            at = data.rfind(b"\n## ")
            if at >= 0 and (start > 0 or at >= len(header) - 1):
                return parse_entry(data[at + 1:])
            if start == 0:
                return (0, "", {}) if data == header else None
            chunk *= 16


def parse_entry(region: bytes) -> tuple[int, str, Fields] | None:
    """One whole log entry, the region's only one, as (position, type,
    fields), in the grammar of :func:`kairos.domain.logformat.parse_entries`
    but for building the event; None when it is not one."""
    try:
        lines = region.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    if len(lines) < 2 or lines[-1] != "":
        return None
    lines.pop()
    n = len(lines)
    head = HEADER.fullmatch(lines[0])
    if head is None or n < 2 or lines[1] != "":
        return None
    i, fields = 2, {}
    while True:
        fm = FIELD.fullmatch(lines[i]) if i < n else None
        if fm is None or fm.group(1) in fields:
            return None
        name, kind, value = fm.groups()
        i += 1
        if value is None:  # a block: blank, indented lines, blank
            if i >= n or lines[i] != "":
                return None
            i += 1
            parts = []
            while i < n and lines[i].startswith(INDENT):
                parts.append(_UNESCAPE.sub(_unescape, lines[i][len(INDENT):]))
                i += 1
            if not parts or i >= n or lines[i] != "":
                return None
            i += 1
            value = "\n".join(parts)
        try:
            fields[name] = json.loads(value) if kind == "json" else value
        except ValueError:
            return None
        if name == "hash":
            break
    if i < n and lines[i].startswith("- mac: "):
        if HEX64.fullmatch(lines[i][7:]) is None:
            return None
        i += 1
    if i != n - 1 or lines[i] != "" or HEX64.fullmatch(str(fields["hash"])) is None:
        return None
    return int(head.group(1)), head.group(2), fields


def _unescape(m: re.Match[str]) -> str:
    code = m.group(1)
    if code == "\\":
        return "\\"
    return "\r" if code == "r" else chr(int(code[1:], 16))


def same_event(type_name: str, fields: Fields, row: tuple[str, int, str, bytes]) -> bool:
    """Whether a log entry's fields are the stored event's (a row of the
    library's ``stored_events``: originator id, version, topic, JSON state):
    the entry is then the one the full path's check reads, and it passes."""
    originator_id, version, topic, state_json = row
    if type_name not in TYPE_NAMES or topic.rpartition(".")[2] != type_name:
        return False
    rest = dict(fields)
    try:
        state = json.loads(state_json)  # not JSON: a cipher or a compressor (the full path)
        same = (rest.pop("stream") == f"{UUID(originator_id)} v{version}"
                and parse_time(rest.pop("time"))
                == datetime.fromisoformat(state["timestamp"]["_data_"])
                and rest.pop("event") == state["event_id"] and rest.pop("prev") == state["prev"]
                and rest.pop("hash") == state["hash"])
    except (KeyError, ValueError, TypeError, AttributeError):
        return False
    payload = {k: v for k, v in state.items() if k not in BASE_FIELDS and v is not None}
    return same and rest == payload

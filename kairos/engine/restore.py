"""Restoring the store from the logs: the incident path.

When the database is lost, the logs are the history.  :func:`restore_store`
reads every entry once, in position order, checks each stream's hash
chain, the entries' MACs and the order of positions, and inserts the events
at their logged positions in one transaction: nothing is imported unless
everything checks out.

Most entries never become event objects.  An entry that is exactly the
rendering of its fields (:mod:`kairos.domain.logfast`; every entry Kairos
wrote is) goes from its text to its hash and to the row the library would
store for it, its stored JSON made here in the library's own field order
and encoder.  Any other entry — written by hand, damaged, forged — is
parsed and checked as before, and refused with the same message.
``tests/test_restore.py`` checks that both ways store the same rows, for
every event type.

An entry read fast is, byte for byte, what the store renders it to; so when
every entry is read fast and lies in the day file the store's events place
it in, the logs are already what the store gives, and the rebuild need not
read the store back to compare them (:func:`~kairos.engine.rebuild.repair_logs`):
:func:`restore_store` says so.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring
from typing import Any, Protocol

from eventsourcing.persistence import DatetimeAsISO

from kairos.domain.events import EVENT_TYPES, MemoryStream, Recorded, expected_hash
from kairos.domain.logfast import Fast
from kairos.domain.logformat import Entry, mac_holds, parse_entries
from kairos.engine.engine import Engine
from kairos.engine.logmirror import ordered_entries, past_the_end, placed_day
from kairos.engine.logread import iter_fast
from kairos.engine.store import StoredRow
from kairos.engine.verify import ChainChecker
from kairos.errors import Inconsistent, VerificationFailed
from kairos.progress import SILENT, Progress, counted


class Imported(Protocol):
    imported: int


def restore_store(engine: Engine, report: Imported, *, import_past_end: bool = False,
                  key: bytes | None = None, progress: Progress = SILENT) -> bool:
    """Import the logs' events the store lacks, at their logged positions;
    return whether the logs are now exactly what the store renders to (see
    the module's docstring: False means only "not known", and the caller
    compares them the long way).

    :raises VerificationFailed: when a log file does not parse, an entry
        breaks its stream's hash chain, or (with the key) its MAC does not
        hold — or, once entries carry MACs, a later one has none.
    :raises Inconsistent: when the store holds events that differ from the
        logs, or holds events and the logs go past its end (without
        ``import_past_end``).
    """
    store = engine.store
    chains = ChainChecker()
    stored = store.max_position()
    in_store = store.read()
    encode = store.state_encoder()
    if stored and not import_past_end and engine.logs_ahead() is not None:
        raise Inconsistent(past_the_end(engine.mirror, stored) + "; nothing imported (to "
                           "import them anyway: `kairos rebuild --from-logs --import-past-end`)")
    # Whether the logs are known to be the store's rendering: only when
    # every entry is imported (a store that held events is compared with
    # them as events), read fast and placed where the store would place it.
    matched = stored == 0 and encode is not None

    def rows() -> Iterator[StoredRow]:
        nonlocal matched
        last = 0
        mac_from: int | None = None
        rel_day: tuple[str, str] = ("", "")  # the file of the last entry, and its day
        placed: str | None = None  # the day file the store's events place the last entry in
        for rel, entry in counted(_all_entries(engine, fast=encode is not None), progress):
            fast = entry if isinstance(entry, Fast) else None
            if fast is not None:
                wrong = chains.link(fast.stream, fast.version, fast.prev, fast.hash)
                if wrong is None and fast.content_hash() != fast.hash:
                    wrong = "hash does not match the event's content"
            else:
                assert isinstance(entry, Entry)
                event = entry.event
                wrong = chains.link(str(event.originator_id), event.originator_version,
                                    event.prev, event.hash)
                if wrong is None and expected_hash(event) != event.hash:
                    wrong = "hash does not match the event's content"
                matched = False
            if entry.mac is not None:
                mac_from = entry.position if mac_from is None else mac_from
                if key is not None and not _mac_holds(key, entry):
                    wrong = wrong or "its mac does not hold (forged or altered)"
            elif mac_from is not None:
                wrong = wrong or f"no mac, though the entries from position {mac_from} have one"
            if wrong or entry.position <= last:
                raise VerificationFailed(
                    f"{rel}:{entry.line} (position {entry.position}): "
                    f"{wrong or 'position out of order'}; nothing imported")
            last = entry.position
            if entry.position > stored:
                if fast is not None and encode is not None:
                    if rel != rel_day[0]:
                        rel_day = (rel, os.path.basename(rel)[:-3])
                    placed = placed_day(fast.time[:10], placed)
                    matched = matched and placed == rel_day[1]
                    yield fast_row(fast, encode)
                else:
                    assert isinstance(entry, Entry)
                    yield store.stored_row(Recorded(entry.position, entry.event))
                continue
            have = next(in_store, None)
            event = _event(entry)
            if have is None or have.position != entry.position or have.event != event:
                raise Inconsistent(f"the store's event at position {entry.position} differs "
                                   "from the logs: run `kairos verify`")
        if next(in_store, None) is not None:
            raise Inconsistent("the store holds events the logs do not: run `kairos verify`")

    report.imported = store.restore(rows())
    return matched


def _all_entries(engine: Engine, *, fast: bool) -> Iterator[tuple[str, Fast | Entry]]:
    """Every log entry in position order (see :func:`ordered_entries`), read
    fast where it can be (``fast``: this store takes rows made without the
    library's mapper)."""
    def bad(rel: str, e: Exception) -> None:
        line = getattr(e, "line", "?")
        raise VerificationFailed(f"{rel}:{line}: {getattr(e, 'reason', e)}; nothing imported")

    if fast:
        return ordered_entries(engine.mirror, bad, read=iter_fast)
    from kairos.engine.logread import iter_entries

    return ordered_entries(engine.mirror, bad, read=iter_entries)


def _mac_holds(key: bytes, entry: Fast | Entry) -> bool:
    return entry.mac_holds(key) if isinstance(entry, Fast) else mac_holds(key, entry)


def _event(entry: Fast | Entry) -> Any:
    """The event of an entry, parsed (an entry read fast is one that parses)."""
    if isinstance(entry, Fast):
        return parse_entries(entry.text, entry.line)[0].event
    return entry.event


# -- rows without event objects -----------------------------------------------------

_TIMESTAMP = DatetimeAsISO.name  # the library's transcoding of a datetime
_NOT_STATE = frozenset({"originator_id", "originator_version"})  # columns of their own


@dataclasses.dataclass(frozen=True)
class _Shape:
    """How the library stores an event type: its topic, and its state's
    fields after the timestamp in the order the event object holds them (the
    mapper encodes ``vars(event)``), with ``class_version`` when the type
    has one (the mapper adds it last)."""

    topic: str
    fields: tuple[str, ...]
    class_version: str


def _shape(cls: type) -> _Shape:
    fields = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _NOT_STATE)
    assert fields[0] == "timestamp", fields
    version = getattr(cls, "class_version", 1)
    return _Shape(getattr(cls, "TOPIC"), fields[1:],  # noqa: B009 - set on every event class
                  f',"class_version":{version}' if version > 1 else "")


_SHAPES: dict[str, _Shape] = {str(kind): _shape(cls) for kind, cls in EVENT_TYPES.items()}


def iso_time(time: str) -> str:
    """``datetime.isoformat()`` of a UTC time given as
    :func:`~kairos.domain.hashing.format_time` writes it (the stored form):
    ``+00:00`` for the ``Z``, and no fraction when it is zero."""
    if time[20:26] == "000000":
        return time[:19] + "+00:00"
    return time[:26] + "+00:00"


def fast_row(fast: Fast, encode: Callable[[Any], bytes]) -> StoredRow:
    """The row the library stores for the event of an entry read fast: what
    :meth:`~kairos.engine.store.Store.stored_row` gives for the parsed event.
    Its JSON written out as the library's encoder writes it (no spaces, no
    ASCII escaping, fields in the object's order): strings with the JSON
    encoder's own escaping, any other value by ``encode`` itself."""
    shape = _SHAPES[fast.type_name]
    values = {**fast.payload, "originator_topic": MemoryStream.TOPIC,
              "event_id": fast.event_id, "prev": fast.prev, "hash": fast.hash}
    items = [f'{{"timestamp":{{"_type_":"{_TIMESTAMP}","_data_":"{iso_time(fast.time)}"}}']
    for name in shape.fields:
        value = values[name]
        if isinstance(value, str):
            items.append(f'"{name}":{encode_basestring(value)}')
        elif value is None:
            items.append(f'"{name}":null')
        else:
            items.append(f'"{name}":{encode(value).decode()}')
    state = ",".join(items) + shape.class_version + "}"
    return (fast.position, fast.stream.replace("-", ""), fast.version, shape.topic,
            state.encode())

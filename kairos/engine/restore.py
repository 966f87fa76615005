"""Restoring the store from the logs: the incident path.

When the database is lost, the logs are the history.  :func:`restore_store`
reads every entry once, in position order, checks each stream's hash
chain, the entries' MACs and the order of positions, and inserts the events
at their logged positions in one transaction: nothing is imported unless
everything checks out.

Most entries never become event objects.  An entry that is exactly the
rendering of its fields (:mod:`kairos.domain.logfast`; every entry Kairos
wrote is) goes from its text to its hash and to the row the library would
store for it, its stored JSON written in the library's own field order and
encoder (:mod:`kairos.engine.restore_rows`, which does that work for large
logs on a second core).  Any other entry — written by hand, damaged, forged — is
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

import os
from collections.abc import Iterator
from typing import Protocol
from uuid import UUID

from kairos.domain.events import Recorded, expected_hash
from kairos.domain.logformat import Entry, mac_holds
from kairos.engine.engine import Engine
from kairos.engine.logmirror import ordered_entries, past_the_end, placed_day
from kairos.engine.restore_rows import BlockReader, Prepared
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

    def rows(entries: Iterator[tuple[str, Prepared | Entry]]) -> Iterator[StoredRow]:
        nonlocal matched
        last = 0
        mac_from: int | None = None
        rel_day: tuple[str, str] = ("", "")  # the file of the last entry, and its day
        placed: str | None = None  # the day file the store's events place the last entry in
        for rel, entry in counted(entries, progress):
            if isinstance(entry, Prepared):
                wrong = chains.link(entry.stream, entry.version, entry.prev, entry.hash)
                if wrong is None and not entry.hash_holds:
                    wrong = "hash does not match the event's content"
            else:
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
                if isinstance(entry, Prepared):
                    if rel != rel_day[0]:
                        rel_day = (rel, os.path.basename(rel)[:-3])
                    placed = placed_day(entry.time[:10], placed)
                    matched = matched and placed == rel_day[1]
                    yield entry.row
                else:
                    yield store.stored_row(Recorded(entry.position, entry.event))
                continue
            have = next(in_store, None)
            if have is None or have.position != entry.position or (
                    not _same_row(store.stored_row(have), entry.row)
                    if isinstance(entry, Prepared) else have.event != entry.event):
                raise Inconsistent(f"the store's event at position {entry.position} differs "
                                   "from the logs: run `kairos verify`")
        if next(in_store, None) is not None:
            raise Inconsistent("the store holds events the logs do not: run `kairos verify`")

    log_bytes = sum(os.path.getsize(path) for _, path in engine.mirror.day_files())
    reader = None if encode is None else BlockReader(key, encode, log_bytes=log_bytes)
    try:
        report.imported = store.restore(rows(_all_entries(engine, reader)))
    finally:
        if reader is not None:
            reader.close()
    return matched


def _all_entries(engine: Engine, reader: BlockReader | None
                 ) -> Iterator[tuple[str, Prepared | Entry]]:
    """Every log entry in position order (see :func:`ordered_entries`),
    with ``reader`` when this store takes rows made without the library's
    mapper (entries read fast come :class:`Prepared`)."""
    def bad(rel: str, e: Exception) -> None:
        line = getattr(e, "line", "?")
        raise VerificationFailed(f"{rel}:{line}: {getattr(e, 'reason', e)}; nothing imported")

    if reader is not None:
        return ordered_entries(engine.mirror, bad, read=reader)
    from kairos.engine.logread import iter_entries

    return ordered_entries(engine.mirror, bad, read=iter_entries)


def _same_row(stored: StoredRow, made: StoredRow) -> bool:
    """Whether the row of a stored event is the row made from its entry (the
    stream id a UUID in one, its hex digits in the other): the same event,
    since the row holds every field of it."""
    return stored[0] == made[0] and UUID(str(stored[1])) == UUID(str(made[1])) and (
        stored[2:] == made[2:])


def _mac_holds(key: bytes, entry: Prepared | Entry) -> bool:
    return entry.mac_holds if isinstance(entry, Prepared) else mac_holds(key, entry)


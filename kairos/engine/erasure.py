"""Erasure: forget a person (crypto-shredding) without rewriting history.

In a home that encrypts, a pair's memory text exists in clear only where the
read side decrypted it: the read model (files, lines, the event index, the
full-text index, embeddings) and the materialized files.  Everywhere else —
events, snapshots, logs — it is encrypted under the pair's own data key.
So erasing the pairs of a user is, in this order:

1. record a ``SubjectErased`` event in each pair (who, when, why, how many
   events, which keys; never what was said): it empties every file of the
   pair, and an interrupted erasure is finished by running it again;
2. destroy the pairs' data keys (:meth:`~kairos.engine.keyring.Keyring.destroy`);
3. bring the read side up: the erasure empties the files and their lines,
   and takes the text of the pair's earlier events out of the event index
   and the full-text index;
4. purge what the read side keeps beyond that: the embeddings of the texts,
   the full-text index's old segments, and — so no deleted page still holds
   them — the database's free pages and write-ahead log (SQLite: ``VACUUM``
   and a truncating checkpoint; PostgreSQL: ``VACUUM FULL`` of the read
   model's tables).

A home that does not encrypt, or a pair with events recorded before it did,
cannot be erased this way: their text is in the events and the logs, which
Kairos never rewrites (``docs/privacy.md``).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from sqlalchemy import Engine as SAEngine

from kairos import clock
from kairos.domain.encrypted import TEXT_FIELDS, is_encrypted
from kairos.domain.events import MemoryStream, SubjectErased, payload_of
from kairos.domain.kinds import EventType
from kairos.engine.engine import Engine
from kairos.errors import BadInput, NotFound
from kairos.projections.schema import files_table, index, lines_table, vectors_table
from kairos.projections.search import compact

# The read model's tables that hold text or what was made of it.
TEXT_TABLES = tuple(t.name for t in (index, files_table, lines_table, vectors_table))
# How long an erasure waits for other sessions to let its compaction finish.
COMPACT_SECONDS = 30.0
DEAD_KEPT = re.compile(r"(\d+) dead row versions cannot be removed yet")


@dataclass
class Erasure:
    """What an erasure did (or, dry, would do): counts and names, never content."""

    user: str
    agent: str | None
    dry_run: bool
    pairs: list[dict[str, Any]] = field(default_factory=list)  # agent, events, files, keys
    events: int = 0
    lines: int = 0
    vectors: int = 0
    erased: list[str] = field(default_factory=list)  # the SubjectErased events' ids
    # Whether the database was compacted (no free page, dead row or log frame
    # left that may hold the text); False: run the erasure again.
    compacted: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"user": self.user, "agent": self.agent, "dry_run": self.dry_run,
                "pairs": self.pairs, "events": self.events, "lines": self.lines,
                "vectors": self.vectors, "erased": self.erased, "compacted": self.compacted}


def clear_events(engine: Engine, agent: str, user: str) -> int:
    """How many of a pair's events hold content that is not encrypted."""
    count = 0
    for event in engine.store.stream(MemoryStream.stream_id(agent, user)):
        kind = event.kind
        payload = payload_of(event)
        if any(isinstance(payload.get(name), str) and not is_encrypted(payload[name])
               for name in TEXT_FIELDS.get(kind, ())):
            count += 1
        elif kind is EventType.APPROVED and any(
                not is_encrypted(s[1]) for segs in payload["contents"].values() for s in segs):
            count += 1
        elif kind is EventType.PROPOSED and not is_encrypted(payload["report"]):
            count += 1
    return count


def erase(engine: Engine, user: str, agent: str | None, *, by: str, reason: str,
          dry_run: bool = False) -> Erasure:
    """Erase the pairs of ``user`` (all its agents, or ``agent``'s).

    :raises NotFound: the user has no pair (with that agent).
    :raises BadInput: the home does not encrypt, or a pair holds events
        recorded in clear (nothing is erased then).
    """
    engine.fresh()
    pairs = [(a, u) for a, u in engine.readmodel.pairs()
             if u == user and (agent is None or a == agent)]
    if not pairs:
        raise NotFound(f"no memory of user {user!r}" + (f" with agent {agent!r}" if agent else ""))
    keyring = engine.keyring
    if keyring is None or not keyring.encrypts:
        raise BadInput(
            "this home does not encrypt memory ([privacy] encrypt = true), so its events and "
            "logs hold the text in clear, and Kairos never rewrites them: nothing erased "
            "(see docs/privacy.md)")
    report = Erasure(user, agent, dry_run)
    clear = 0
    digests: set[str] = set()  # of every text the read side holds: their embeddings go
    for a, u in pairs:
        sid = MemoryStream.stream_id(a, u)
        events, lines, texts = engine.readmodel.pair_texts(a, u)
        files = [f.file for f in engine.index.files_of(a, u) if f.content]
        report.pairs.append({"agent": a, "events": events, "files": files,
                             "keys": len(keyring.key_ids(sid))})
        report.events += events
        report.lines += lines
        digests.update(map(engine.vectors.digest, texts))  # keyed, as the cache names them
        clear += clear_events(engine, a, u)
    if clear:
        raise BadInput(f"{clear} event(s) of these pairs were recorded before the home "
                       "encrypted: their text is in clear in the events and logs, which Kairos "
                       "never rewrites, so they cannot be erased (see docs/privacy.md); "
                       "nothing erased")
    if dry_run:
        return report
    # The embeddings first, while the texts they were made of are still
    # known (a run interrupted later finds them gone from the read model).
    report.vectors = engine.readmodel.delete_vectors(sorted(digests))
    now = clock.now()
    for a, u in pairs:
        sid = MemoryStream.stream_id(a, u)

        def command(stream: MemoryStream, sid: UUID = sid) -> None:
            # The keys are listed and destroyed under the writer lock: no
            # writer can make or use one in between.
            stream.erase(by, reason, keyring.key_ids(sid), now)

        def destroy(sid: UUID = sid) -> None:
            assert keyring is not None
            keyring.destroy(sid)

        rec, _ = engine.execute(a, u, command, then=destroy)
        assert isinstance(rec.event, SubjectErased)
        report.erased.append(rec.event.event_id)
    engine.flush()
    # Again: the follower may have embedded a line before the erasure emptied it.
    report.vectors += engine.readmodel.delete_vectors(sorted(digests))
    report.compacted = _compact(engine)
    return report


def _compact(engine: Engine) -> bool:
    """Merge the full-text index and leave no free page, dead row or log
    frame that may hold erased text; False when other sessions kept that
    from finishing within :data:`COMPACT_SECONDS` (running ``forget`` again
    finishes it)."""
    deadline = time.monotonic() + COMPACT_SECONDS
    with engine.read_side_held() as readmodel, engine.writer_lock():
        with readmodel.engine.begin() as conn:
            compact(conn)
        while True:
            done = (_compact_sqlite(readmodel.engine) if readmodel.engine.dialect.name ==
                    "sqlite" else _compact_postgres(readmodel.engine))
            if done or time.monotonic() > deadline:
                return done
            time.sleep(0.5)


def _compact_sqlite(db: SAEngine) -> bool:
    """VACUUM rewrites the database with its live rows only; the WAL, which
    still holds the old pages, is checkpointed and truncated before and
    after.  A reader of another process can keep a checkpoint from
    finishing: then False."""
    with db.connect() as conn:
        raw: Any = conn.connection.driver_connection
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        raw.execute("VACUUM")
        busy = raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    return not busy


def _compact_postgres(db: SAEngine) -> bool:
    """VACUUM FULL rewrites each read-model table with the rows no session
    can still see; a row deleted while another session held an older
    snapshot is copied too ("dead row versions cannot be removed yet"):
    then False, and the caller tries again."""
    with db.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        raw: Any = conn.connection.driver_connection
        kept: list[int] = []

        def notice(diag: Any) -> None:
            found = DEAD_KEPT.search(diag.message_detail or "")
            if found:
                kept.append(int(found.group(1)))

        raw.add_notice_handler(notice)
        try:
            conn.exec_driver_sql(f"SET lock_timeout = '{int(COMPACT_SECONDS)}s'")
            for table in TEXT_TABLES:
                conn.exec_driver_sql(f"VACUUM (FULL, VERBOSE) {table}")
        finally:
            raw.remove_notice_handler(notice)
    return not any(kept)


__all__ = ["Erasure", "erase"]

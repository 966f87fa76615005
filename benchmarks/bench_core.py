"""Core benchmarks: durable write throughput and full rebuild speed.

Run by hand (not part of the test suite); the figures go in docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_core.py [--writes 2000] [--events 100000]

Prints, from one run on this machine:
  1. durable writes/s through Kairos: each write returns once its event is
     committed and its log entry fsynced; the read model and the files
     follow, and the clock stops when they have caught up;
  2. writes/s of a bare eventsourcing application on the same SQLite backend
     (same durable connection settings, one aggregate event per save);
  3. raw sqlite3 inserts/s (WAL, synchronous=FULL, one commit per insert);
  4. a full rebuild of all projections from N events (events/s) against
     reading the notification log alone, in the same pages (500 events), raw
     and decoded to events; and the database's share of a rebuild alone, the
     bound no rebuild that re-indexes every event can pass.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from kairos.domain.events import MemoryStream
from kairos.engine.postgres import env_from_url
from kairos.engine.rebuild import RebuildReport, rebuild_projections
from kairos.engine.store import PAGE
from kairos.memory import Memory
from kairos.projections.indexer import index_row

DURABLE = {"PERSISTENCE_MODULE": "kairos.engine.sqlite:DurableSQLiteFactory",
           "SQLITE_LOCK_TIMEOUT": "30"}


class Note(Aggregate):
    @event("Created")
    def __init__(self, name: str) -> None:
        self.name = name

    @event("Written")
    def write(self, text: str) -> None:
        self.last = text


class Bare(Application):
    pass


def bench_kairos(tmp: Path, n: int, pairs: int, url: str | None = None) -> float:
    """Each write returns once its event is committed and its log entry fsynced;
    the read model and the files follow in the background.  The clock stops
    only when they have caught up with the last write (``flush``), so the
    figure counts all of the work, not just the part on the write path."""
    with Memory.init(str(tmp / f"kairos-home-{'pg' if url else 'sqlite'}"), url) as mem:
        for p in range(pairs):  # open the streams first, as a running system has them
            mem.write("agent", "MEMORY.md", "warm-up", user=f"u{p}")
        mem.flush()
        start = time.perf_counter()
        for i in range(n):
            mem.write("agent", "MEMORY.md", f"fact number {i} about the user",
                      user=f"u{i % pairs}", mode="replace")
        mem.flush()
        return n / (time.perf_counter() - start)


def bench_bare(tmp: Path, n: int, pairs: int, url: str | None = None) -> float:
    backend = ({**env_from_url(url), "PERSISTENCE_MODULE": "eventsourcing.postgres"} if url
               else {**DURABLE, "SQLITE_DBNAME": str(tmp / "bare.db")})
    app = Bare(env={**backend, "AGGREGATE_CACHE_MAXSIZE": "1000"})
    ids = []
    for p in range(pairs):
        note = Note(f"u{p}")
        app.save(note)
        ids.append(note.id)
    start = time.perf_counter()
    for i in range(n):
        note = app.repository.get(ids[i % pairs])
        note.write(f"fact number {i} about the user")
        app.save(note)
    rate = n / (time.perf_counter() - start)
    app.close()
    return rate


def bench_sqlite(tmp: Path, n: int) -> float:
    conn = sqlite3.connect(tmp / "raw.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)")
    body = b'{"text":"fact number about the user"}' * 4
    start = time.perf_counter()
    for _ in range(n):
        conn.execute("BEGIN")
        conn.execute("INSERT INTO t (body) VALUES (?)", (body,))
        conn.execute("COMMIT")
    rate = n / (time.perf_counter() - start)
    conn.close()
    return rate


def seed(home: Path, events: int, per_stream: int = 100) -> Memory:
    """Put ``events`` events in a new home quickly: whole streams per save,
    then one catch-up that writes the logs, and the read side brought up."""
    mem = Memory.init(str(home))
    now = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    store = mem.engine.store
    for s in range(events // per_stream):
        stream = MemoryStream.open("agent", f"u{s}", now)
        for i in range(per_stream - 1):
            stream.write("MEMORY.md", f"fact {i} of user {s}: likes item {i * 7 % 13}",
                         "append" if i % 10 else "replace", "agent", None, now)
        store.save(stream)
    mem.engine.catch_up()
    mem.flush()
    return mem


def bench_rebuild(tmp: Path, events: int) -> tuple[float, float, float, float]:
    mem = seed(tmp / "rebuild-home", events)
    store = mem.engine.store
    start = time.perf_counter()
    after, raw = 0, 0
    while True:
        rows = store.app.recorder.select_notifications(start=after, limit=PAGE,
                                                       inclusive_of_start=False)
        raw += len(rows)
        if len(rows) < PAGE:
            break
        after = rows[-1].id
    raw_rate = raw / (time.perf_counter() - start)
    start = time.perf_counter()
    decoded = sum(1 for _ in store.read())
    read_rate = decoded / (time.perf_counter() - start)
    db_rate = database_work(mem)
    start = time.perf_counter()
    report = RebuildReport()
    rebuild_projections(mem.engine, report)
    rebuild_rate = report.events / (time.perf_counter() - start)
    mem.close()
    return raw_rate, read_rate, rebuild_rate, db_rate


def database_work(mem: Memory) -> float:
    """events/s of the database's share of a rebuild alone: empty the read
    model, insert the (precomputed) index rows, build the indexes.  A bound:
    no rebuild that re-indexes every event can go faster."""
    engine = mem.engine
    where = engine.mirror.locate()
    rows = [index_row(r, where) for r in engine.store.read_bulk()]
    with engine.read_side_held() as readmodel:
        start = time.perf_counter()
        readmodel.reset()
        with readmodel.transaction() as writer:
            writer.load_index(rows)
        readmodel.create_indexes()
        return len(rows) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--pairs", type=int, default=50)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--pg", metavar="URL",
                        help="also compare writes on PostgreSQL (two empty databases: URL "
                             "for Kairos, URL + '_bare' for the bare application)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as d:
        tmp = Path(d)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, tmp on {tmp}")
        k = bench_kairos(tmp, args.writes, args.pairs)
        b = bench_bare(tmp, args.writes, args.pairs)
        r = bench_sqlite(tmp, args.writes)
        print(f"durable writes/s  kairos {k:8.0f}   bare eventsourcing {b:8.0f}   "
              f"raw sqlite3 {r:8.0f}")
        print(f"ratios            kairos/bare {k / b:6.0%}   kairos/raw {k / r:6.0%}   "
              f"bare/raw {b / r:6.0%}")
        if args.pg:
            kp = bench_kairos(tmp, args.writes, args.pairs, args.pg)
            bp = bench_bare(tmp, args.writes, args.pairs, args.pg + "_bare")
            print(f"postgresql writes/s kairos {kp:8.0f}   bare eventsourcing {bp:8.0f}   "
                  f"kairos/bare {kp / bp:6.0%}")
        raw, read, rebuild, db = bench_rebuild(tmp, args.events)
        print(f"{args.events} events  read notifications {raw:9.0f}/s   read+decode "
              f"{read:9.0f}/s   rebuild projections {rebuild:9.0f}/s")
        print(f"ratios            rebuild/read+decode {rebuild / read:6.0%}   "
              f"rebuild/raw read {rebuild / raw:6.0%}")
        bound = 1 / (1 / raw + 1 / db)
        print(f"bound             the database's share alone (empty, insert index rows, "
              f"build indexes) {db:9.0f}/s: a rebuild that also reads is at most "
              f"{bound:9.0f}/s = {bound / raw:.0%} of the raw read")


if __name__ == "__main__":
    main()

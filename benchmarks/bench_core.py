"""Core benchmarks: durable write throughput and full rebuild speed, with
every contender interleaved over rounds.

Run by hand (not part of the test suite); the figures go in docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_core.py writes [--writes 2000] [--rounds 5] [--pg URL]
    .venv/bin/python benchmarks/bench_core.py rebuild [--events 100000] [--days 30] [--rounds 3]

``writes``: each round runs every contender once, in turn (A, B, C, ... A, B,
C, ...), each in a fresh directory, so that the machine's drift (other
processes, the page cache, the disk) falls on all of them alike:

* ``kairos``: ``Memory.write``; a write returns once its event is committed
  (``synchronous=FULL``) and its log entry fsynced; the read model and the
  files follow in the background, and the clock stops when they have
  caught up with the last write (``flush``): all of the work is counted;
* ``bare-mem``: a bare eventsourcing application on the same SQLite settings
  that keeps its aggregates in memory (one ``save`` per write, no reload):
  the strongest bare baseline;
* ``bare-get``: the same application reloading the aggregate before each
  write (``repository.get``: a copy and a fast-forward query), as a naive
  one does;
* ``bare-log``: ``bare-mem`` plus, after each save, a log line appended to a
  file and fsynced: the floor of Kairos's design on the library (an event
  durable in the store, then its line durable in the day file; the two
  cannot overlap, since a line may never name an event the store lost);
* ``kairos-nofollow``: Kairos without the background follower
  (``Memory(follow=False)``), the read model and files brought up once at
  the end, inside the clock: the writer's own cost, with the read side in
  one bulk catch-up instead of competing with each write;
* ``two-fsyncs``: raw sqlite3, one insert per commit, plus a line appended
  to a file and fsynced: the physical floor of Kairos's design (two durable
  copies per write) on this disk, with no other work at all;
* ``raw-sqlite``: raw sqlite3, one insert per commit.

Writes/s per round (min / median / max over rounds) and each write's latency
(p50 / p99, pooled over rounds; Kairos's is until ``write`` returns).

``rebuild``: a home seeded with N events spread over D days (``--days 1`` puts
them in one day file: the stress case), then per round, in turn: reading the
notification log raw (the library's ``select_notifications``), reading and
decoding it with the library's mapper, reading it with Kairos's msgspec
decoding (``read_bulk``), the projection rebuild alone
(``rebuild_projections``) and the whole ``kairos rebuild`` command (a fresh
process: interpreter, imports, the log checks and repairs, and the rebuild).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

from kairos.domain.events import MemoryStream
from kairos.engine.postgres import env_from_url
from kairos.engine.rebuild import RebuildReport, rebuild_projections
from kairos.engine.store import PAGE
from kairos.memory import Memory

DURABLE = {"PERSISTENCE_MODULE": "kairos.engine.sqlite:DurableSQLiteFactory",
           "SQLITE_LOCK_TIMEOUT": "30"}
Run = tuple[float, list[float]]  # writes/s, each write's latency (ms)


class Note(Aggregate):
    @event("Created")
    def __init__(self, name: str) -> None:
        self.name = name

    @event("Written")
    def write(self, text: str) -> None:
        self.last = text


class Bare(Application):
    pass


def text(i: int) -> str:
    return f"fact number {i} about the user"


def kairos(tmp: Path, n: int, pairs: int, url: str | None, *, follow: bool = True) -> Run:
    """See the module's docstring."""
    lat = []
    Memory.init(str(tmp / "kairos-home"), url).close()
    with Memory(str(tmp / "kairos-home"), url, follow=follow) as mem:
        for p in range(pairs):  # open the streams first, as a running system has them
            mem.write("agent", "MEMORY.md", "warm-up", user=f"u{p}")
        mem.flush()
        start = time.perf_counter()
        for i in range(n):
            t = time.perf_counter()
            mem.write("agent", "MEMORY.md", text(i), user=f"u{i % pairs}", mode="replace")
            lat.append((time.perf_counter() - t) * 1000)
        mem.flush()
        return n / (time.perf_counter() - start), lat


def bare(tmp: Path, n: int, pairs: int, url: str | None, *, reload: bool,
         log: bool = False) -> Run:
    backend = ({**env_from_url(url), "PERSISTENCE_MODULE": "eventsourcing.postgres"} if url
               else {**DURABLE, "SQLITE_DBNAME": str(tmp / "bare.db")})
    app = Bare(env={**backend, "AGGREGATE_CACHE_MAXSIZE": "1000"})
    notes = []
    for p in range(pairs):
        note = Note(f"u{p}")
        app.save(note)
        notes.append(note)
    fd = os.open(tmp / "bare.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    lat = []
    start = time.perf_counter()
    for i in range(n):
        t = time.perf_counter()
        note = app.repository.get(notes[i % pairs].id) if reload else notes[i % pairs]
        note.write(text(i))
        app.save(note)
        if log:
            os.write(fd, b"- %d %s\n" % (note.version, text(i).encode()))
            os.fsync(fd)
        lat.append((time.perf_counter() - t) * 1000)
    rate = n / (time.perf_counter() - start)
    os.close(fd)
    app.close()
    return rate, lat


def raw(tmp: Path, n: int, *, log: bool) -> Run:
    conn = sqlite3.connect(tmp / "raw.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)")
    fd = os.open(tmp / "raw.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    lat = []
    start = time.perf_counter()
    for i in range(n):
        t = time.perf_counter()
        body = b'{"text":"%s"}' % text(i).encode()
        conn.execute("BEGIN")
        conn.execute("INSERT INTO t (body) VALUES (?)", (body,))
        conn.execute("COMMIT")
        if log:
            os.write(fd, b"- " + body + b"\n")
            os.fsync(fd)
        lat.append((time.perf_counter() - t) * 1000)
    rate = n / (time.perf_counter() - start)
    os.close(fd)
    conn.close()
    return rate, lat


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def interleave(contenders: dict[str, Callable[[Path], Run]], rounds: int
               ) -> dict[str, list[Run]]:
    out: dict[str, list[Run]] = {name: [] for name in contenders}
    for r in range(rounds):
        for name, run in contenders.items():
            with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as d:
                out[name].append(run(Path(d)))
            print(f"  round {r + 1} {name:11} {out[name][-1][0]:8.0f} writes/s", flush=True)
    return out


def report(title: str, runs: dict[str, list[Run]], base: str) -> None:
    print(f"\n{title}\n| contender | writes/s min | median | max | latency p50 ms | p99 ms "
          f"| median / {base} |\n|---|---:|---:|---:|---:|---:|---:|")
    base_median = statistics.median(r for r, _ in runs[base])
    for name, rs in runs.items():
        rates = [r for r, _ in rs]
        lat = [x for _, ls in rs for x in ls]
        print(f"| {name} | {min(rates):,.0f} | {statistics.median(rates):,.0f} | "
              f"{max(rates):,.0f} | {pct(lat, 0.5):.3f} | {pct(lat, 0.99):.3f} | "
              f"{statistics.median(rates) / base_median:.0%} |")
    for num, den in (("kairos", base), ("bare-log", base), ("kairos", "bare-log")):
        if num in runs and den in runs:
            k = [a[0] / b[0] for a, b in zip(runs[num], runs[den], strict=True)]
            print(f"{num} / {den}, round by round: min {min(k):.0%}, median "
                  f"{statistics.median(k):.0%}, max {max(k):.0%}")


def writes(args: argparse.Namespace) -> None:
    n, pairs = args.writes, args.pairs
    contenders: dict[str, Callable[[Path], Run]] = {
        "kairos": lambda d: kairos(d, n, pairs, None),
        "bare-mem": lambda d: bare(d, n, pairs, None, reload=False),
        "bare-get": lambda d: bare(d, n, pairs, None, reload=True),
        "bare-log": lambda d: bare(d, n, pairs, None, reload=False, log=True),
        "kairos-nofollow": lambda d: kairos(d, n, pairs, None, follow=False),
        "two-fsyncs": lambda d: raw(d, n, log=True),
        "raw-sqlite": lambda d: raw(d, n, log=False),
    }
    report(f"SQLite, {n} writes over {pairs} pairs, {args.rounds} rounds",
           interleave(contenders, args.rounds), "bare-mem")
    if args.pg:
        pg: dict[str, Callable[[Path], Run]] = {
            "kairos": lambda d: kairos(d, n, pairs, fresh_pg(args.pg, "k")),
            "bare-mem": lambda d: bare(d, n, pairs, fresh_pg(args.pg, "m"), reload=False),
            "bare-get": lambda d: bare(d, n, pairs, fresh_pg(args.pg, "g"), reload=True),
        }
        report(f"PostgreSQL, {n} writes over {pairs} pairs, {args.rounds} rounds",
               interleave(pg, args.rounds), "bare-mem")


def fresh_pg(url: str, tag: str) -> str:
    """An empty database beside ``url``'s (dropped and made again)."""
    import psycopg

    base, _, name = url.rpartition("/")
    db = f"{name}_{tag}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {db}")
    return f"{base}/{db}"


# -- rebuild ---------------------------------------------------------------------------------
def seed(home: Path, events: int, days: int = 1, per_stream: int = 100) -> Memory:
    """Put ``events`` events in a new home quickly: whole streams per save
    (stream ``s`` on day ``s % days``), then one catch-up that writes the
    logs, and the read side brought up."""
    mem = Memory.init(str(home))
    first = datetime(2026, 10, 1, 9, 0, tzinfo=UTC)
    store = mem.engine.store
    streams = events // per_stream
    for s in range(streams):
        now = first + timedelta(days=s * days // streams)
        stream = MemoryStream.open("agent", f"u{s}", now)
        for i in range(per_stream - 1):
            stream.write("MEMORY.md", f"fact {i} of user {s}: likes item {i * 7 % 13}",
                         "append" if i % 10 else "replace", "agent", None, now)
        store.save(stream)
    mem.engine.catch_up()
    mem.flush()
    return mem


def one_round(home: Path, events: int, rates: dict[str, list[float]]) -> None:
    """Each way of reading or rebuilding the home once, in turn."""

    def timed(name: str, count: Callable[[], int]) -> None:
        t = time.perf_counter()
        n = count()
        rates.setdefault(name, []).append(n / (time.perf_counter() - t))

    with Memory(str(home)) as mem:
        store = mem.engine.store
        timed("read notifications (library, raw rows)",
              lambda: sum(len(rows) for rows in store.pages(0, None, PAGE)))
        timed("read + decode (library's mapper)", lambda: sum(1 for _ in store.read()))
        timed("read + decode (msgspec, read_bulk)", lambda: sum(1 for _ in store.read_bulk()))

        def projections() -> int:
            report = RebuildReport()
            rebuild_projections(mem.engine, report)
            return report.events

        timed("rebuild_projections", projections)

    def command() -> int:
        subprocess.run([str(Path(sys.executable).parent / "kairos"), "--home", str(home),
                        "rebuild", "--json"], check=True, capture_output=True)
        return events

    timed("kairos rebuild (the command)", command)


def rebuild(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as d:
        home = Path(d) / "home"
        t = time.perf_counter()
        seed(home, args.events, args.days).close()
        print(f"seeded {args.events} events over {args.days} day(s) in "
              f"{time.perf_counter() - t:.0f} s", flush=True)
        rates: dict[str, list[float]] = {}
        for r in range(args.rounds):
            one_round(home, args.events, rates)
            print(f"  round {r + 1} done", flush=True)
        print(f"\n{args.events} events over {args.days} day(s), {args.rounds} rounds\n"
              "| what | events/s min | median | max |\n|---|---:|---:|---:|")
        for name, xs in rates.items():
            print(f"| {name} | {min(xs):,.0f} | {statistics.median(xs):,.0f} | {max(xs):,.0f} |")
        med = {name: statistics.median(xs) for name, xs in rates.items()}
        for base in ("read + decode (library's mapper)", "read + decode (msgspec, read_bulk)",
                     "read notifications (library, raw rows)"):
            print(f"rebuild_projections / {base}: {med['rebuild_projections'] / med[base]:.0%}; "
                  f"the command: {med['kairos rebuild (the command)'] / med[base]:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    w = sub.add_parser("writes")
    w.add_argument("--writes", type=int, default=2000)
    w.add_argument("--pairs", type=int, default=50)
    w.add_argument("--rounds", type=int, default=5)
    w.add_argument("--pg", metavar="URL", help="also PostgreSQL (databases made beside URL's)")
    r = sub.add_parser("rebuild")
    r.add_argument("--events", type=int, default=100_000)
    r.add_argument("--days", type=int, default=30)
    r.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    writes(args) if args.what == "writes" else rebuild(args)


if __name__ == "__main__":
    main()

"""Costs that must stay flat as a home grows: open, verify, rebuild, and the
incident path ``rebuild --from-logs`` (issue 13, items 1-3).

Run by hand, never as a test; the figures go in docs/benchmarks.md.

    # a home of N events, all in one day file (the stress case), written once
    .venv/bin/python benchmarks/bench_scale.py seed /tmp/scale/h100k --events 100000

    # interleaved rounds: each Python (each a venv with its own Kairos) in turn
    .venv/bin/python benchmarks/bench_scale.py run --python OLD/.venv/bin/python \\
        --python .venv/bin/python --rounds 5 open /tmp/scale/h1k /tmp/scale/h1m

Measures, in a fresh process for each run so that each Kairos is what runs:

* ``open``: ``Memory(home)`` and ``close`` in the process (interpreter start
  not counted), for each home given;
* ``verify`` / ``rebuild``: the ``kairos`` command, wall time and the peak
  RSS of its process (``os.wait4``);
* ``from-logs``: ``kairos rebuild --from-logs`` on a copy of the home's
  logs without its database (the copy is made outside the timing); events/s
  counted from the store it restored;
* ``write``: 500 durable appends over 20 pairs in a process that opened the
  home (p50 / p99 latency, writes/s until the read side caught up; they
  stay in the home);
* ``read``: the ``kairos read`` command for one pair's file;
* ``search``: 200 searches by words over 50 pairs, in process (p50 / p99);
* ``disk``: the database and the logs, bytes per event;
* ``dream``: ``kairos dream --all``, the nightly job, on a home where no
  pair is due (the seed ends no sessions): what checking every pair's gate
  costs as the home grows.

The seed writes whole streams per save and one catch-up (as
``bench_core.seed``), so a million events take minutes, not an hour.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta

WORKER_OPEN = """
import sys, time
from kairos.memory import Memory
t = time.perf_counter()
m = Memory(sys.argv[1])
m.close()
print(time.perf_counter() - t)
"""


WORKER_WRITE = """
import sys, time
from kairos.memory import Memory
m = Memory(sys.argv[1])
lat = []
t = time.perf_counter()
for i in range(500):
    w = time.perf_counter()
    m.write("agent", "MEMORY.md", f"scale note {i}: likes item {i % 13}", user=f"u{i % 20}")
    lat.append(time.perf_counter() - w)
m.flush()
rate = 500 / (time.perf_counter() - t)
m.close()
lat.sort()
print(lat[250] * 1000, lat[495] * 1000, rate)
"""

WORKER_SEARCH = """
import sys, time
from kairos.agent.search import Search
from kairos.memory import Memory
m = Memory(sys.argv[1])
search = Search(m.engine.search_index)  # by words: vectors are search_latency's (bench_search)
search.search("agent", "likes item", user="u3")
lat = []
for n in range(200):
    t = time.perf_counter()
    search.search("agent", f"likes item {n % 13}", user=f"u{n % 50}")
    lat.append(time.perf_counter() - t)
m.close()
lat.sort()
print(lat[100] * 1000, lat[198] * 1000)
"""


def seed(home: str, events: int, days: int, per_stream: int) -> None:
    """``events`` events (in ``days`` day files), written quickly."""
    from kairos.domain.events import MemoryStream
    from kairos.engine.rebuild import RebuildReport, rebuild_projections
    from kairos.memory import Memory

    t = time.perf_counter()
    # Days well before today's: a measurement's own writes go to today's file,
    # and a seeded day file of today would then span every position after it
    # (verify and rebuild read overlapping files together, merged).
    start = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
    Memory.init(home).close()
    # No follower: it would apply the seeded events page by page as the logs
    # are written (a 5,000,000 seed stalled behind it); one load does it after.
    with Memory(home, follow=False) as mem:
        store = mem.engine.store
        streams = max(1, events // per_stream)
        for s in range(streams):
            now = start + timedelta(days=s * days // streams)
            stream = MemoryStream.open("agent", f"u{s}", now)
            for i in range(per_stream - 1):
                stream.write("MEMORY.md", f"fact {i} of user {s}: likes item {i * 7 % 13}",
                             "append" if i % 10 else "replace", "agent", None, now)
            store.save(stream)
            if s % 100 == 99:
                mem.engine.catch_up()  # the logs, a few thousand entries at a time
        mem.engine.catch_up()
        # The read side in one load: applying a million events batch by batch
        # would look up their log places page by page.
        rebuild_projections(mem.engine, RebuildReport())
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(
        os.path.join(home, "logs")) for f in fs)
    print(f"seeded {home}: {events} events, {size / 1e6:.1f} MB of logs, "
          f"{time.perf_counter() - t:.0f} s")


def run_child(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, stdout) of one process.  Its output
    goes to files (a pipe nobody reads while waiting would block it)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        # From / : a worker started in a source tree would import that tree's Kairos.
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd="/")
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): "
                             f"{err.read().decode()[-2000:]}")
        return wall, usage.ru_maxrss / 1024, out.read().decode()


def kairos_of(python: str) -> str:
    return os.path.join(os.path.dirname(python), "kairos")


def stored_events(home: str) -> int:
    conn = sqlite3.connect(os.path.join(home, "kairos.db"))
    try:
        return int(conn.execute("SELECT count(*) FROM stored_events").fetchone()[0])
    finally:
        conn.close()


def measure(what: str, python: str, home: str, scratch: str) -> str:
    """One run of ``what``: a line of figures."""
    if what == "open":
        wall, rss, out = run_child([python, "-c", WORKER_OPEN, home])
        return f"open {float(out):8.3f} s   rss {rss:6.0f} MB"
    if what == "write":  # 500 durable appends over 20 pairs (they stay in the home)
        wall, rss, out = run_child([python, "-c", WORKER_WRITE, home])
        p50, p99, rate = (float(x) for x in out.split())
        return f"write {p50:8.3f} ms p50   {p99:8.3f} ms p99   {rate:6.0f} writes/s   rss {rss:6.0f} MB"
    if what == "read":  # the command, a file of one pair, now
        wall, rss, _ = run_child([kairos_of(python), "--home", home, "read", "-a", "agent",
                                  "-u", "u7", "-f", "MEMORY.md"])
        return f"read {wall:8.3f} s   rss {rss:6.0f} MB"
    if what == "search":  # in process, lexical, 200 searches over 50 pairs
        wall, rss, out = run_child([python, "-c", WORKER_SEARCH, home])
        p50, p99 = (float(x) for x in out.split())
        return f"search {p50:8.3f} ms p50   {p99:8.3f} ms p99   rss {rss:6.0f} MB"
    if what == "disk":  # bytes per million events: the database and the logs
        n = stored_events(home)
        db = sum(os.path.getsize(os.path.join(home, f)) for f in os.listdir(home)
                 if f.startswith("kairos.db"))
        logs = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(
            os.path.join(home, "logs")) for f in fs)
        return (f"disk {db / n:8.0f} B/event database   {logs / n:6.0f} B/event logs   "
                f"({(db + logs) / n * 1e6 / 1e9:.2f} GB per million events)")
    if what in ("verify", "rebuild"):
        wall, rss, _ = run_child([kairos_of(python), "--home", home, what])
        return f"{what} {wall:8.2f} s   rss {rss:6.0f} MB"
    if what == "dream":  # the nightly job: every pair's gate, none due in a seeded home
        wall, rss, out = run_child([kairos_of(python), "--home", home, "dream", "--all",
                                    "--json"])
        return f"dream {wall:8.2f} s   rss {rss:6.0f} MB"
    if what == "from-logs":
        copy = os.path.join(scratch, "restore")
        shutil.rmtree(copy, ignore_errors=True)
        os.makedirs(copy)
        shutil.copytree(os.path.join(home, "logs"), os.path.join(copy, "logs"))
        shutil.copy(os.path.join(home, "kairos.toml"), copy)
        os.sync()  # the copy's pages on disk, not in the timing's write-back
        wall, rss, _ = run_child([kairos_of(python), "--home", copy, "rebuild", "--from-logs"])
        n = stored_events(copy)
        shutil.rmtree(copy)
        return f"from-logs {wall:8.2f} s   {n / wall:8.0f} events/s   rss {rss:6.0f} MB   ({n})"
    raise SystemExit(f"unknown measurement {what}")


def figure(line: str) -> float:
    """The first number of a result line (seconds)."""
    return float(line.split()[1])


def run(pythons: list[str], what: str, homes: list[str], rounds: int) -> None:
    with open("/proc/loadavg") as f:
        print(f"load average before: {f.read().split()[:3]}")
    results: dict[tuple[str, str], list[str]] = {}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as scratch:
        for r in range(rounds):
            for home in homes:
                for python in pythons:  # interleaved: A, B, A, B …
                    line = measure(what, python, home, scratch)
                    results.setdefault((home, python), []).append(line)
                    print(f"round {r + 1}  {os.path.basename(home):>8}  {python}: {line}",
                          flush=True)
    with open("/proc/loadavg") as f:
        print(f"load average after: {f.read().split()[:3]}")
    for (home, python), lines in results.items():
        xs = sorted(figure(line) for line in lines)
        print(f"{what} {os.path.basename(home):>8} {python}: min {xs[0]:.3f}  median "
              f"{statistics.median(xs):.3f}  max {xs[-1]:.3f}  (s)")


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("seed")
    s.add_argument("home")
    s.add_argument("--events", type=int, default=100_000)
    s.add_argument("--days", type=int, default=1)
    s.add_argument("--per-stream", type=int, default=100)
    r = sub.add_parser("run")
    r.add_argument("--python", action="append", default=[])
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("what", choices=["open", "write", "read", "search", "disk", "verify",
                                    "rebuild", "from-logs", "dream"])
    r.add_argument("homes", nargs="+")
    args = parser.parse_args()
    if args.cmd == "seed":
        seed(args.home, args.events, args.days, args.per_stream)
    else:
        run(args.python or [sys.executable], args.what, args.homes, args.rounds)


if __name__ == "__main__":
    main()

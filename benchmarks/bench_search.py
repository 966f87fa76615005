"""Search benchmarks (issue 12): latency, index upkeep, rebuild with the index.

Run by hand; the figures go in docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_search.py --home /tmp/bench-1m [--events 1000000]

1. Seeds (once; reused when ``--home`` holds one) a home of ``--events``
   events: streams of 100 events of many pairs, saved whole through the
   store (not 1,000,000 durable writes), then one pair, ``bench/target``,
   with 10,000 events of varied text; logs written by one catch-up.
2. A full rebuild of every projection, the search index included (FTS5
   built after the load), events/s; the vector cache is filled before, so
   the rebuild embeds nothing (``embedded`` printed).
3. Search latency for the target pair, p50/p99 over the query set,
   in-process: lexical (no embedder) and hybrid (wordllama, vectors
   cached; the first query, which loads the pair's matrix, reported apart).
4. The same through the command line (``kairos search`` wall time), and
   the CLI's start alone (``kairos --version``) beside it.
5. Index upkeep on durable writes: a fresh home, rounds of writes with the
   search index on and off, interleaved (A B, B A, …), writes/s per round,
   the cost per round (on against the same round's off) with a bootstrap
   interval of its median;
   the process's CPU per write, and how long the writer waited for the
   process's write lock (and the follower held it) per write.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kairos.agent.search import Search  # noqa: E402
from kairos.domain.events import MemoryStream  # noqa: E402
from kairos.engine.rebuild import RebuildReport, rebuild_projections  # noqa: E402
from kairos.memory import Memory  # noqa: E402
from kairos.projections import indexer  # noqa: E402
from kairos.projections.embedders import Guarded, WordLlamaEmbedder  # noqa: E402
from kairos.projections.search import drop_fts  # noqa: E402

DATA = json.loads((ROOT / "tests/data/recall/dataset.json").read_text(encoding="utf-8"))
FACTS = [f["text"] for f in DATA["facts"] if all(ord(c) < 0x3000 for c in f["text"])]
QUERIES = [q["query"] for q in DATA["queries"] if all(ord(c) < 0x3000 for c in q["query"])]
NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def bootstrap_median(xs: list[float], draws: int = 10_000, seed: int = 1
                     ) -> tuple[float, float]:
    """A 90 % percentile-bootstrap interval of the median of ``xs``."""
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(draws))
    return medians[int(0.05 * draws)], medians[int(0.95 * draws)]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def seed(home: Path, events: int, logs: bool) -> None:
    """The store only (``logs`` False: the in-process figures need no logs,
    and writing a million log entries is most of a seed's time), or with the
    logs written by one catch-up (what the command line needs to open it)."""
    rng = random.Random(7)
    mem = Memory.init(str(home))
    store = mem.engine.store
    for s in range((events - 10_000) // 100):
        stream = MemoryStream.open("agent", f"u{s}", NOW)
        for i in range(99):
            stream.write("MEMORY.md", rng.choice(FACTS),
                         "append" if i % 10 else "replace", "agent", None, NOW)
        store.save(stream)
    stream = MemoryStream.open("bench", "target", NOW)
    for i in range(9_999):
        text = f"{rng.choice(FACTS)} {rng.choice(FACTS).split()[0]} #{i}"
        if i % 7 == 0:
            stream.end_session(None, "system", text, NOW)
        else:
            stream.write("MEMORY.md", text, "append" if i % 50 else "replace", "agent", None, NOW)
        if i % 1000 == 999:
            store.save(stream)
    store.save(stream)
    if logs:
        mem.engine.catch_up()
    mem.close()


def search_latency(mem: Memory, embedder: Guarded | None, rounds: int = 2) -> dict[str, float]:
    search = Search(mem.engine.search_index, embedder)
    t = time.perf_counter()
    search.search("bench", QUERIES[0], user="target")
    first = (time.perf_counter() - t) * 1000
    times = []
    for _ in range(rounds):
        for q in QUERIES:
            t = time.perf_counter()
            search.search("bench", q, user="target")
            times.append((time.perf_counter() - t) * 1000)
    return {"first_ms": first, "p50_ms": pct(times, 0.5), "p99_ms": pct(times, 0.99),
            "n": len(times)}


def cli_latency(home: Path, n: int = 15) -> dict[str, float]:
    """``kairos search`` wall time on a home with logs (the target pair in a
    home of 50,000 events: the command's cost does not grow with the home)."""
    kairos = str(Path(sys.executable).parent / "kairos")
    start, run = [], []
    for q in QUERIES[:n]:
        t = time.perf_counter()
        subprocess.run([kairos, "--version"], check=True, capture_output=True)
        start.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        subprocess.run([kairos, "--home", str(home), "search", "-a", "bench", "-u", "target", q],
                       check=True, capture_output=True)
        run.append((time.perf_counter() - t) * 1000)
    return {"start_p50_ms": pct(start, 0.5), "search_p50_ms": pct(run, 0.5),
            "search_p99_ms": pct(run, 0.99)}


class TimedLock:
    """The engine's lock around every write transaction of the process (the
    store's commit, the follower's read-model batch), timed: how long each
    thread waited for it and held it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waited: dict[str, float] = {}
        self.held: dict[str, float] = {}
        self.since = 0.0

    def __enter__(self) -> None:
        t = time.perf_counter()
        self.lock.acquire()
        self.since = time.perf_counter()
        name = _role()
        self.waited[name] = self.waited.get(name, 0.0) + self.since - t

    def __exit__(self, *exc: object) -> None:
        name = _role()
        self.held[name] = self.held.get(name, 0.0) + time.perf_counter() - self.since
        self.lock.release()


def _role() -> str:
    return "follower" if threading.current_thread().name.startswith("kairos-f") else "writer"


def upkeep(tmp: Path, writes: int, rounds: int, variants: tuple[str, ...] = ("on", "off")
           ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Durable writes/s with the search index on and off, interleaved (the
    clock stops when the read side has caught up with the last write), and
    each write's latency (until it returns: the index is kept after, by the
    follower, which competes with the next writes).  A third variant,
    ``nofts``, keeps the current lines and drops only the full-text index."""
    out: dict[str, list[float]] = {v: [] for v in variants}
    lat: dict[str, list[float]] = {v: [] for v in variants}
    cpu: dict[str, list[float]] = {v: [] for v in variants}
    locks: dict[str, list[TimedLock]] = {v: [] for v in variants}
    step, changes = indexer._Lines.step, indexer._Lines.changes
    for r in range(rounds):
        # The order alternates between rounds (A B, B A, …): whatever the
        # machine does in the second half of a round falls on both sides.
        for variant in (variants if r % 2 == 0 else tuple(reversed(variants))):
            home = tmp / f"upkeep-{r}-{variant}"
            home.mkdir()
            (home / "kairos.toml").write_text('[search]\nembeddings = "off"\n')
            mem = Memory.init(str(home))
            if variant in ("off", "nofts"):
                with mem.engine.readmodel.engine.begin() as conn:
                    drop_fts(conn)
            if variant == "off":
                indexer._Lines.step = lambda *a, **k: None  # type: ignore[method-assign]
                indexer._Lines.changes = lambda *a, **k: ([], [])  # type: ignore[method-assign]
            lock = mem.engine._db_write = TimedLock()  # type: ignore[assignment]
            locks[variant].append(lock)
            try:
                t, c = time.perf_counter(), time.process_time()
                for i in range(writes):
                    w = time.perf_counter()
                    mem.write("ada", "MEMORY.md", f"{FACTS[i % len(FACTS)]} #{i}",
                              user=f"u{i % 20}")
                    lat[variant].append((time.perf_counter() - w) * 1000)
                mem.flush()
                out[variant].append(writes / (time.perf_counter() - t))
                cpu[variant].append((time.process_time() - c) / writes * 1e6)
            finally:
                indexer._Lines.step, indexer._Lines.changes = step, changes  # type: ignore[method-assign]
                mem.close()
    for v in variants:  # per write, every thread of the process
        print(f"{v}: CPU per write {[round(x) for x in cpu[v]]} us, median "
              f"{statistics.median(cpu[v]):.0f}; the write lock per write, median over rounds: "
              + ", ".join(f"{who} waited {_per_write(locks[v], 'waited', who, writes):.0f} us "
                          f"and held it {_per_write(locks[v], 'held', who, writes):.0f} us"
                          for who in ("writer", "follower")), flush=True)
    return out, lat


def _per_write(locks: list[TimedLock], what: str, who: str, writes: int) -> float:
    return statistics.median(getattr(lock, what).get(who, 0.0) for lock in locks) / writes * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True, help="the 1M-event home (seeded when empty)")
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--writes", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--variants", default="on,off", help="upkeep variants: on, off, nofts")
    ap.add_argument("--skip", default="",
                    help="comma-separated: rebuild,latency,cli,upkeep (with rebuild and "
                         "latency both skipped, only the upkeep runs: the home is neither "
                         "seeded nor opened)")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    if {"rebuild", "latency"} <= skip:
        upkeep_only(args)
        return
    home = Path(args.home)
    if not (home / "kairos.toml").exists():
        t = time.perf_counter()
        seed(home, args.events, logs=False)
        print(f"seeded {args.events} events in {time.perf_counter() - t:.0f} s", flush=True)
    mem = Memory(str(home), recover=False)  # no logs: see seed()
    rebuild_projections(mem.engine, RebuildReport())
    embedder = Guarded(WordLlamaEmbedder())
    mem.engine.embedder = embedder
    t = time.perf_counter()
    made = mem.engine.embed()
    print(f"vector cache filled: {made} texts embedded in {time.perf_counter() - t:.0f} s",
          flush=True)
    if "rebuild" not in skip:
        for _ in range(2):
            calls = [0]
            inner = embedder.inner.embed

            def counted(texts: list[str], inner=inner, calls=calls) -> object:  # type: ignore[no-untyped-def]
                calls[0] += len(texts)
                return inner(texts)

            embedder.inner.embed = counted  # type: ignore[method-assign]
            t = time.perf_counter()
            report = RebuildReport()
            rebuild_projections(mem.engine, report)
            mem.engine.embed()
            dt = time.perf_counter() - t
            embedder.inner.embed = inner  # type: ignore[method-assign]
            print(f"rebuild with the search index: {report.events} events in {dt:.1f} s, "
                  f"{report.events / dt:,.0f} events/s; embedded {calls[0]}", flush=True)
    if "latency" not in skip:
        for name, emb in (("lexical", None), ("hybrid", embedder)):
            print(f"in-process {name}: {search_latency(mem, emb)}", flush=True)
    mem.close()
    if "cli" not in skip:
        small = Path(str(home) + "-cli")
        if not (small / "kairos.toml").exists():
            seed(small, 50_000, logs=True)
        print(f"cli (hybrid, the home's default): {cli_latency(small)}", flush=True)
    if "upkeep" not in skip:
        upkeep_only(args)


def upkeep_only(args: argparse.Namespace) -> None:
    """Write cost of the index: interleaved rounds on fresh homes (step 5)."""
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        res, lat = upkeep(Path(tmp), args.writes, args.rounds, tuple(args.variants.split(",")))
    for v in res:
        print(f"durable writes/s, {v}: {[round(x) for x in res[v]]} "
              f"median {statistics.median(res[v]):.0f}", flush=True)
    on, off = statistics.median(res["on"]), statistics.median(res["off"])
    print(f"durable writes/s, index on: {[round(x) for x in res['on']]} median {on:.0f}; "
          f"off: {[round(x) for x in res['off']]} median {off:.0f}; "
          f"upkeep costs {100 * (1 - on / off):.1f} %", flush=True)
    paired = [100 * (1 - a / b) for a, b in zip(res["on"], res["off"], strict=True)]
    low, high = bootstrap_median(paired)
    print(f"upkeep per round (on against off of the same round): "
          f"{[round(x, 1) for x in paired]}; median {statistics.median(paired):.1f} %, "
          f"90 % bootstrap interval of the median {low:.1f} to {high:.1f} %", flush=True)
    for v in res:
        print(f"write latency, index {v}: p50 {pct(lat[v], 0.5):.2f} ms, "
              f"p99 {pct(lat[v], 0.99):.2f} ms ({len(lat[v])} writes)", flush=True)
    os.environ.pop("KAIROS_HOME", None)


if __name__ == "__main__":
    main()

"""Dream benchmarks: one big pair, and --all over many pairs (rules distiller).

Run by hand; the figures go in docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_dream.py [--sessions 913] [--pairs 1000]

1. One pair with 913 sessions of about 11 writes each (about 10,000 writes,
   with the duplicates and contradictions a chatty agent produces): the time
   and peak memory of one dream (gather, consolidate, prune, guards, record).
2. ``kairos dream --all`` over 1,000 pairs that each pass the gate.
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kairos.domain.events import MemoryStream
from kairos.dream.runner import run
from kairos.memory import Memory

THINGS = ["bike", "laptop", "plant", "book", "guitar", "camera", "kettle", "lamp", "desk", "car"]
COLORS = ["red", "blue", "green", "black", "white", "silver", "yellow"]


def fill_pair(mem: Memory, agent: str, user: str, sessions: int, writes: int,
              rng: random.Random, start: datetime) -> None:
    """Sessions of writes, saved a session at a time, then logged and indexed."""
    stream = MemoryStream.open(agent, user, start)
    now = start
    for s in range(sessions):
        for _ in range(writes):
            now += timedelta(minutes=1)
            k = rng.randrange(80)
            text = (f"{user.capitalize()}'s {THINGS[k % 10]} number {k} is "
                    f"{COLORS[rng.randrange(len(COLORS))]}.")
            stream.write("MEMORY.md", text, "append", "agent", f"s-{s}", now)
        now += timedelta(minutes=5)
        stream.end_session(f"s-{s}", "system", None, now)
        mem.engine.store.save(stream)
        now += timedelta(hours=3)


def peak(fn):  # type: ignore[no-untyped-def]
    tracemalloc.start()
    started = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - started
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, elapsed, top / 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=913)
    parser.add_argument("--writes", type=int, default=11)
    parser.add_argument("--pairs", type=int, default=1000)
    args = parser.parse_args()
    rng = random.Random(7)
    start = datetime.now(UTC) - timedelta(days=130)
    with tempfile.TemporaryDirectory() as tmp:
        with Memory.init(str(Path(tmp) / "big")) as mem:
            fill_pair(mem, "ada", "sam", args.sessions, args.writes, rng, start)
            mem.engine.catch_up()
            mem.flush()  # the read side caught up before anything is timed
            events = mem.engine.store.max_position()
            _, _, top = peak(lambda: mem.dreams.dream("ada", "sam", force=True, dry_run=True))
            started = time.perf_counter()
            outcome = mem.dreams.dream("ada", "sam", force=True)
            elapsed = time.perf_counter() - started
            shown = mem.dreams.show(outcome.dream_id)
            lines = {name: len(f["lines"]) for name, f in shown["files"].items()}
            print(f"one pair: {args.sessions} sessions, {events} events -> dream {elapsed:.2f} s, "
                  f"peak {top:.0f} MiB traced (in a dry run); proposal: {lines}")
            _, approve_s, approve_mb = peak(lambda: mem.dreams.approve(outcome.dream_id, "bench"))
            print(f"  approval (replay + publish): {approve_s:.2f} s, peak {approve_mb:.0f} MiB")
        with Memory.init(str(Path(tmp) / "many")) as mem:
            for p in range(args.pairs):
                fill_pair(mem, f"agent{p % 10}", f"user{p}", 6, 3, rng, start)
            mem.engine.catch_up()
            mem.flush()  # the read side caught up before anything is timed
            events = mem.engine.store.max_position()
            started = time.perf_counter()
            summary = run(mem.dreams, force=False)
            elapsed = time.perf_counter() - started
            _, _, top = peak(lambda: run(mem.dreams, force=True, dry_run=True))
            print(f"--all: {args.pairs} pairs, {events} events -> {elapsed:.1f} s "
                  f"({elapsed / args.pairs * 1000:.1f} ms a pair), peak {top:.0f} MiB traced (dry run); "
                  f"{len(summary.proposed)} proposed, {len(summary.skipped)} skipped, "
                  f"{len(summary.unchanged)} unchanged, {len(summary.failed)} failed")
    print(f"process max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()

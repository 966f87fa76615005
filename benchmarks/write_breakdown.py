"""Where the time of one durable Kairos write goes (SQLite), by step.

    .venv/bin/python benchmarks/write_breakdown.py [--writes 2000]

Wraps the engine's steps with timers: loading the stream, the store commit
(which includes the read-model rows, written in the same transaction), and
appending + fsyncing the log entry.  The materialized files are written by a
background thread after the write returns: what they cost the write path is
the share of the machine that thread takes, inside "the rest".
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from typing import Any

from kairos.memory import Memory


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=2000)
    args = parser.parse_args()
    timings: dict[str, float] = {}

    def timed(obj: Any, attr: str, name: str) -> None:
        fn: Callable[..., Any] = getattr(obj, attr)

        def wrapper(*a: Any, **k: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
        setattr(obj, attr, wrapper)

    with tempfile.TemporaryDirectory() as tmp, Memory.init(tmp + "/home") as mem:
        for p in range(50):
            mem.write("agent", "MEMORY.md", "warm-up", user=f"u{p}")
        engine = mem.engine
        timed(engine.store, "get", "load the stream (cache + fast-forward query)")
        timed(engine.store, "save", "store commit, read-model rows included")
        timed(engine.indexer, "apply", "  of which: read-model rows")
        timed(engine.mirror, "plan", "  of which: render + place log entry")
        timed(engine.mirror, "write", "log append + fsync")
        start = time.perf_counter()
        for i in range(args.writes):
            mem.write("agent", "MEMORY.md", f"fact number {i} about the user",
                      user=f"u{i % 50}", mode="replace")
        total = time.perf_counter() - start
    n = args.writes
    print(f"{n} writes, {total / n * 1000:.3f} ms each ({n / total:.0f}/s)")
    accounted = 0.0
    order = ["load", "store", "  of which: read", "  of which: render", "log"]
    for name, seconds in sorted(timings.items(),
                                key=lambda kv: next(i for i, p in enumerate(order)
                                                    if kv[0].startswith(p))):
        print(f"  {name:<46} {seconds / n * 1000:.3f} ms")
        if not name.startswith("  "):
            accounted += seconds
    print(f"  {'the rest (lock, checks, command, hashing)':<46} "
          f"{(total - accounted) / n * 1000:.3f} ms")


if __name__ == "__main__":
    main()

"""Where the time of one durable Kairos write goes (SQLite), by step.

    .venv/bin/python benchmarks/write_breakdown.py [--writes 2000]

Wraps the engine's steps with timers.  On the write path: loading the stream
(with the check that no other process wrote), the store commit, rendering
the log entry and appending and fsyncing it.  After the write returns, in the follower thread: the
read-model batches and the file flushes, which overlap the next writes; the
clock stops once they have caught up with the last write.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from kairos.memory import Memory


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writes", type=int, default=2000)
    args = parser.parse_args()
    timings: dict[str, float] = {}
    calls: dict[str, int] = {}
    lock = threading.Lock()

    def timed(obj: Any, attr: str, name: str) -> None:
        fn: Callable[..., Any] = getattr(obj, attr)

        def wrapper(*a: Any, **k: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                with lock:
                    timings[name] = timings.get(name, 0.0) + time.perf_counter() - start
                    calls[name] = calls.get(name, 0) + 1
        setattr(obj, attr, wrapper)

    with tempfile.TemporaryDirectory() as tmp, Memory.init(tmp + "/home") as mem:
        for p in range(50):
            mem.write("agent", "MEMORY.md", "warm-up", user=f"u{p}")
        mem.flush()
        engine = mem.engine
        timed(engine, "_load", "load the stream (cache, no-other-writer check)")
        timed(engine.store, "save", "store commit (fsynced)")
        timed(engine.mirror, "plan", "render + place the log entry")
        timed(engine.mirror, "write", "log append + fsync")
        assert engine.follower is not None
        timed(engine.follower, "apply", "read-model batches")
        timed(engine.follower, "flush", "materialized-file flushes")
        start = time.perf_counter()
        for i in range(args.writes):
            mem.write("agent", "MEMORY.md", f"fact number {i} about the user",
                      user=f"u{i % 50}", mode="replace")
        on_path = time.perf_counter() - start
        mem.flush()
        total = time.perf_counter() - start
    n = args.writes
    print(f"{n} writes, {total / n * 1000:.3f} ms each ({n / total:.0f}/s), read side "
          f"caught up; {on_path / n * 1000:.3f} ms each until the last write returned")
    print("on the write path, per write:")
    accounted = 0.0
    for name in ("load", "store", "render", "log"):
        key = next(k for k in timings if k.startswith(name))
        print(f"  {key:<48} {timings[key] / n * 1000:.3f} ms")
        if not key.startswith("  "):
            accounted += timings[key]
    print(f"  {'the rest (lock, checks, command, hashing)':<48} "
          f"{(on_path - accounted) / n * 1000:.3f} ms")
    print("after the write returns (follower thread, overlapping the next writes):")
    for name in ("read-model", "materialized"):
        key = next(k for k in timings if k.startswith(name))
        print(f"  {key:<48} {timings[key] / n * 1000:.3f} ms a write "
              f"({calls[key]} of them, {n / calls[key]:.0f} writes each)")


if __name__ == "__main__":
    main()

"""Audit query latency over 1,000,000 events (the read model's event index).

    .venv/bin/python benchmarks/bench_audit.py [--events 1000000] [--pairs 2000]

The index rows are inserted directly (as the indexer writes them) rather
than through a million durable writes, which would take the better part of an
hour and measure the write path, not the query.  The query is the one
`kairos audit --agent A --user U --since T1 --until T2` runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kairos.domain.hashing import format_time
from kairos.memory import Memory


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(5)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as tmp, Memory.init(str(Path(tmp) / "home")) as mem:
        t = time.perf_counter()
        batch = []
        with mem.engine.readmodel.transaction() as writer:
            for p in range(1, args.events + 1):
                pair = rng.randrange(args.pairs)
                at = start + timedelta(seconds=p * 30)
                batch.append((p, str(uuid.UUID(int=p)), str(uuid.UUID(int=pair)), p,
                              "MemoryWritten", f"agent{pair % 20}", f"user{pair}", "MEMORY.md",
                              "agent", f"s-{p // 50}", format_time(at),
                              f"fact {p} about user {pair}", f"logs/{at:%Y/%m/%Y-%m-%d}.md",
                              p % 2000, None))
                if len(batch) == 10_000:
                    writer.load_index(batch)
                    batch = []
            if batch:
                writer.load_index(batch)
        print(f"indexed {args.events} events for {args.pairs} pairs in "
              f"{time.perf_counter() - t:.0f} s")
        end = start + timedelta(seconds=args.events * 30)
        times, sizes = [], []
        for _ in range(args.queries):
            pair = rng.randrange(args.pairs)
            lo = start + (end - start) * rng.random() * 0.9
            hi = lo + timedelta(days=7)
            t = time.perf_counter()
            rows = mem.audit.query(agent=f"agent{pair % 20}", user=f"user{pair}",
                                   since=format_time(lo), until=format_time(hi))
            times.append(time.perf_counter() - t)
            sizes.append(len(rows))
        times.sort()
        print(f"audit --agent --user --since --until (a 7-day window): "
              f"p50 {statistics.median(times) * 1000:.1f} ms, "
              f"p99 {times[int(len(times) * 0.99) - 1] * 1000:.1f} ms, "
              f"max {times[-1] * 1000:.1f} ms; {statistics.mean(sizes):.1f} rows a query")


if __name__ == "__main__":
    main()

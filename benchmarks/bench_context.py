"""Context assembly latency on a home with 10,000 pairs, and the strategies'
token counts on the sample home.  Run by hand; figures in docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_context.py [--agents 100] [--users 100] [--samples 2000]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from kairos.agent.context import assemble, compare
from kairos.domain.events import MemoryStream
from kairos.memory import Memory

ROOT = Path(__file__).resolve().parent.parent


def seed(mem: Memory, agents: int, users: int) -> None:
    now = datetime(2026, 11, 1, tzinfo=UTC)
    store = mem.engine.store
    for a in range(agents):
        s = MemoryStream.open(f"agent{a}", None, now)
        s.write("SOUL.md", f"I am agent {a}, careful and brief. " * 8, "replace", "system", None, now)
        s.write("ABOUT.md", f"Agent {a} helps a household with planning. " * 6, "replace",
                "system", None, now)
        s.write("TOOLS.md", "calendar: confirm the time zone.\nemail: draft only.", "replace",
                "system", None, now)
        store.save(s)
        for u in range(users):
            p = MemoryStream.open(f"agent{a}", f"user{u}", now)
            p.write("USER.md", f"Name: User {u}. Time zone: Europe/Oslo.", "replace", "user",
                    None, now)
            p.write("MEMORY.md", f"User {u} prefers tea; has a cat named Miso {u}.", "append",
                    "agent", None, now)
            store.save(p)
    mem.engine.catch_up()
    mem.flush()  # the read model and files caught up before anything is timed


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return (statistics.median(ordered) * 1000,
            ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(3)
    with tempfile.TemporaryDirectory() as tmp:
        with Memory.init(str(Path(tmp) / "big")) as mem:
            started = time.perf_counter()
            seed(mem, args.agents, args.users)
            print(f"seeded {args.agents * args.users} pairs "
                  f"({mem.engine.store.max_position()} events) in "
                  f"{time.perf_counter() - started:.0f} s")
            for count in (False, True):
                times = []
                for _ in range(args.samples):
                    a, u = rng.randrange(args.agents), rng.randrange(args.users)
                    t = time.perf_counter()
                    assemble(mem, f"agent{a}", f"user{u}", count=count)
                    times.append(time.perf_counter() - t)
                p50, p99 = percentiles(times)
                label = "with token counts" if count else "prompt only"
                print(f"hybrid-v2 assembly, {label}: p50 {p50:.2f} ms, p99 {p99:.2f} ms "
                      f"over {args.samples} random pairs")
        shutil.copytree(ROOT / "logs", Path(tmp) / "sample" / "logs")
        with Memory(str(Path(tmp) / "sample"), recover=False) as mem:
            mem.rebuild(from_logs=True)
            for row in compare(mem, "ada", "sam"):
                print(f"sample ada/sam {row['strategy']:<10} injected {row['injected_tokens']:>5} "
                      f"tokens, on demand {row['on_demand_tokens']:>4} ({row['tokenizer']})")


if __name__ == "__main__":
    main()

"""Privacy benchmarks: what encryption costs a write, and how long an erasure takes.

Run by hand (not part of the test suite); the figures go in docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_privacy.py writes [--writes 2000] [--pairs 50] [--rounds 5]
    .venv/bin/python benchmarks/bench_privacy.py forget [--agents 10] [--events 10000] [--rounds 3]

``writes``: the same durable writes (``Memory.write``, the clock stopped once
the read side has caught up: ``flush``) to a home that does not encrypt and to
one with ``[privacy] encrypt = true``; each round runs both, in turn, each in a
fresh home, the order alternating round by round.  Writes/s (min / median /
max over rounds), latency p50 / p99 pooled over rounds, and encrypted / plain
round by round.

``forget``: a home holding ``--events`` writes of one user spread over
``--agents`` agents, and as many of other users; ``Memory.forget`` of that
user timed (the erasure events, the keys, the read side's purge and the
database compaction).  Each round in a fresh home.
"""

from __future__ import annotations

import argparse
import base64
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_core import Run, kairos, pct  # the same work and figures as the core benchmark

from kairos.memory import Memory


def text(i: int) -> str:
    return f"fact number {i} about the user"


def home(tmp: Path, encrypt: bool) -> Memory:
    Memory.init(str(tmp / "kairos-home")).close()
    if encrypt:
        with open(tmp / "kairos-home" / "kairos.toml", "a", encoding="utf-8") as f:
            f.write("\n[privacy]\nencrypt = true\n")
    return Memory(str(tmp / "kairos-home"))


def writes_run(tmp: Path, n: int, pairs: int, encrypt: bool) -> Run:
    """bench_core's Kairos contender, on a home made to encrypt or not first."""
    home(tmp, encrypt).close()
    return kairos(tmp, n, pairs, None)


def writes(args: argparse.Namespace) -> None:
    contenders: dict[str, Callable[[Path], Run]] = {
        "plain": lambda d: writes_run(d, args.writes, args.pairs, False),
        "encrypted": lambda d: writes_run(d, args.writes, args.pairs, True),
    }
    runs: dict[str, list[Run]] = {name: [] for name in contenders}
    for r in range(args.rounds):
        order = list(contenders) if r % 2 == 0 else list(reversed(contenders))
        for name in order:
            with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as d:
                runs[name].append(contenders[name](Path(d)))
            print(f"  round {r + 1} {name:10} {runs[name][-1][0]:8.0f} writes/s", flush=True)
    print(f"\nSQLite, {args.writes} writes over {args.pairs} pairs, {args.rounds} rounds\n"
          "| home | writes/s min | median | max | latency p50 ms | p99 ms |\n"
          "|---|---:|---:|---:|---:|---:|")
    for name, rs in runs.items():
        rates = [x for x, _ in rs]
        lat = [x for _, ls in rs for x in ls]
        print(f"| {name} | {min(rates):,.0f} | {statistics.median(rates):,.0f} | "
              f"{max(rates):,.0f} | {pct(lat, 0.5):.3f} | {pct(lat, 0.99):.3f} |")
    k = [a[0] / b[0] for a, b in zip(runs["encrypted"], runs["plain"], strict=True)]
    print(f"encrypted / plain, round by round: min {min(k):.0%}, median "
          f"{statistics.median(k):.0%}, max {max(k):.0%}")


def forget(args: argparse.Namespace) -> None:
    times = []
    for r in range(args.rounds):
        with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as d:
            with home(Path(d), True) as mem:
                for i in range(args.events):
                    agent = f"agent{i % args.agents}"
                    mem.write(agent, "MEMORY.md", text(i), user="sam", mode="replace")
                    mem.write(agent, "MEMORY.md", text(i), user=f"other{i % 7}",
                              mode="replace")
                mem.flush()
                start = time.perf_counter()
                erasure = mem.forget("sam", reason="benchmark", by="bench")
                times.append(time.perf_counter() - start)
                assert erasure.events >= args.events, erasure.to_dict()
        print(f"  round {r + 1}: forget of {erasure.events} events in "
              f"{len(erasure.pairs)} pairs: {times[-1]:.2f} s", flush=True)
    print(f"\nforget, {args.events} events of one user over {args.agents} agents (and "
          f"{args.events} of other users), {args.rounds} rounds: min {min(times):.2f} s, "
          f"median {statistics.median(times):.2f} s, max {max(times):.2f} s")


def main() -> None:
    os.environ.setdefault("KAIROS_MASTER_KEY", base64.b64encode(os.urandom(32)).decode())
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    w = sub.add_parser("writes")
    w.add_argument("--writes", type=int, default=2000)
    w.add_argument("--pairs", type=int, default=50)
    w.add_argument("--rounds", type=int, default=5)
    f = sub.add_parser("forget")
    f.add_argument("--agents", type=int, default=10)
    f.add_argument("--events", type=int, default=10000)
    f.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    {"writes": writes, "forget": forget}[args.what](args)


if __name__ == "__main__":
    main()

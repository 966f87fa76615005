"""Privacy benchmarks: what encryption costs a write, and how long an erasure takes.

Run by hand (not part of the test suite); the figures go in docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_privacy.py writes [--writes 2000] [--pairs 50] [--rounds 5]
    .venv/bin/python benchmarks/bench_privacy.py forget [--agents 10] [--events 10000] [--rounds 3]
    .venv/bin/python benchmarks/bench_privacy.py search [--events 2000] [--queries 60] [--rounds 5]

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

``search``: one pair of ``--events`` varied writes (each replacing
MEMORY.md: the history holds them all), searched by words only
(``[search] embeddings = "off"``: the sealed part is the lexical index) in a
plain home, where the full-text index is on disk, and in one that encrypts,
where it is built in memory from the sealed rows (kairos.projections.
sealedsearch).  Per home: the first search of a fresh process (``cold``:
the encrypting home builds the scope's index then), ``--queries`` searches
in a row (``warm``), and as many searches each right after a write
(``after a write``: the index catches up by what changed).  Contenders
alternate in order round by round; min / median / max of the rounds'
medians, p99 pooled.
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


WORDS = ("tea coffee hiking Berlin Oslo dentist meeting project budget guitar piano daughter "
         "school train flight allergy penicillin birthday garden bicycle marathon recipe "
         "Zahnarzttermin Chorprobe vegetarian sushi jazz novel museum office manager").split()


def fact(i: int) -> str:
    a, b, c = WORDS[i % len(WORDS)], WORDS[(i * 7 + 3) % len(WORDS)], WORDS[(i * 13 + 5) % len(WORDS)]
    return f"Note {i}: Sam talked about {a} and {b}, then the {c} came up again"


def search_run(tmp: Path, encrypt: bool, events: int, queries: int) -> dict[str, list[float]]:
    path = tmp / "kairos-home"
    Memory.init(str(path)).close()
    with open(path / "kairos.toml", "a", encoding="utf-8") as f:
        f.write('\n[search]\nembeddings = "off"\n')
        if encrypt:
            f.write("\n[privacy]\nencrypt = true\n")
    with Memory(str(path)) as mem:
        for i in range(events):  # a replace: the file stays short, the history grows
            mem.write("ada", "MEMORY.md", fact(i), user="sam", mode="replace")
        mem.flush()
    out: dict[str, list[float]] = {"cold": [], "warm": [], "after a write": []}
    with Memory(str(path)) as mem:
        start = time.perf_counter()
        assert mem.search("ada", "dentist", user="sam")
        out["cold"].append((time.perf_counter() - start) * 1000)
        for q in range(queries):
            start = time.perf_counter()
            mem.search("ada", f"{WORDS[q % len(WORDS)]} {WORDS[(q * 5) % len(WORDS)]}",
                       user="sam")
            out["warm"].append((time.perf_counter() - start) * 1000)
        for q in range(queries):
            mem.write("ada", "MEMORY.md", fact(events + q), user="sam")
            start = time.perf_counter()
            mem.search("ada", WORDS[(q * 3) % len(WORDS)], user="sam")
            out["after a write"].append((time.perf_counter() - start) * 1000)
    return out


def search(args: argparse.Namespace) -> None:
    runs: dict[str, list[dict[str, list[float]]]] = {"plain": [], "encrypted": []}
    for r in range(args.rounds):
        order = ["plain", "encrypted"] if r % 2 == 0 else ["encrypted", "plain"]
        for name in order:
            with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as d:
                runs[name].append(search_run(Path(d), name == "encrypted", args.events,
                                             args.queries))
            got = runs[name][-1]
            print(f"  round {r + 1} {name:10} cold {got['cold'][0]:7.1f} ms, warm p50 "
                  f"{pct(got['warm'], 0.5):6.2f} ms, after a write p50 "
                  f"{pct(got['after a write'], 0.5):6.2f} ms", flush=True)
    print(f"\nSQLite, one pair of {args.events} writes, words only, {args.rounds} rounds "
          f"({args.queries} searches per kind per round)\n"
          "| home | search | median ms: min | median | max | p99 ms (pooled) |\n"
          "|---|---|---:|---:|---:|---:|")
    for name, rs in runs.items():
        for kind in ("cold", "warm", "after a write"):
            medians = [statistics.median(x[kind]) for x in rs]
            pooled = [v for x in rs for v in x[kind]]
            print(f"| {name} | {kind} | {min(medians):.2f} | {statistics.median(medians):.2f} | "
                  f"{max(medians):.2f} | {pct(pooled, 0.99):.2f} |")


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
    q = sub.add_parser("search")
    q.add_argument("--events", type=int, default=2000)
    q.add_argument("--queries", type=int, default=60)
    q.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    {"writes": writes, "forget": forget, "search": search}[args.what](args)


if __name__ == "__main__":
    main()

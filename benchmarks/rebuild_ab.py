"""Rebuild throughput, A/B between source trees (say main's and this
branch's, and an older commit of it), on copies of one seeded home, in
interleaved rounds.

    git archive main | tar -x -C /tmp/main-src
    ln -s ../projections /tmp/main-src/kairos/projections
    ln -s ../cli /tmp/main-src/kairos/cli
    .venv/bin/python benchmarks/rebuild_ab.py --a /tmp/main-src --b . [--b /tmp/old-src] \
        [--events 100000] [--seed core|search] [--rounds 3]
    .venv/bin/python benchmarks/rebuild_ab.py --a /tmp/main-src --b . --home /tmp/h1m \
        --keep-search --rounds 3     # both trees with the search index, a home seeded once

With ``--home``, an existing home (``bench_core.seed`` or
``bench_search.seed``) is rebuilt where it lies, by each tree in turn (a
rebuild leaves it as it found it), instead of a seeded copy per round: a
home of 1,000,000 events is a gigabyte to copy.  ``--keep-search``: tree A
has the search index too, and is not stripped.

Tree A is the one without the search index.  The home is seeded once, by
tree B's ``bench_core.seed`` (short texts: "fact 12 of user 3: likes item
6") or ``bench_search.seed`` (the recall data set's facts: varied words,
longer lines, session notes), whole streams saved through the store, then
one catch-up that writes the logs.  Each round copies it and times
``rebuild_projections`` in a fresh process running one tree; A's copy first
loses the search index's tables, triggers and migration (A's own reset
would not drop them, and their triggers would fire in its load).  A B A B
…: the shared disk's drift falls on both.  Rebuild with embeddings off: a
rebuild never embeds (the vector cache is kept), and the follower's
background embedding round would only compete for the two cores.
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
from pathlib import Path

CHILD = """
import sys, time
from pathlib import Path
from kairos.engine.rebuild import RebuildReport, rebuild_projections
from kairos.memory import Memory
mem = Memory(sys.argv[1], recover=len(sys.argv) < 3)  # in place: as it was seeded
mem.flush()
t = time.perf_counter()
report = RebuildReport()
rebuild_projections(mem.engine, report)
dt = time.perf_counter() - t
mem.close()
print(report.events / dt)
"""

SEED = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[3])
if sys.argv[4] == "core":
    from bench_core import seed
    seed(Path(sys.argv[1]), int(sys.argv[2])).close()
else:
    from bench_search import seed
    seed(Path(sys.argv[1]), int(sys.argv[2]), logs=True)
"""
STRIP = ["DROP TRIGGER IF EXISTS memory_fts_history", "DROP TRIGGER IF EXISTS memory_fts_line_in",
         "DROP TRIGGER IF EXISTS memory_fts_line_out", "DROP TABLE IF EXISTS memory_fts",
         "DROP TABLE IF EXISTS memory_lines", "DROP TABLE IF EXISTS memory_vectors",
         "DELETE FROM memory_migrations WHERE name LIKE '%search%'"]


def strip(home: Path) -> None:
    """The search index out of a copied home (for tree A, which has none)."""
    conn = sqlite3.connect(home / "kairos.db")
    for sql in STRIP:
        conn.execute(sql)
    conn.commit()
    conn.close()


def run(tree: Path, code: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    env.pop("KAIROS_HOME", None)
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, check=True,
                         capture_output=True, text=True, cwd=tempfile.gettempdir())
    return out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", type=Path, required=True, help="source tree A (seeds the home)")
    ap.add_argument("--b", type=Path, required=True, action="append",
                    help="source tree B (repeatable: B1, B2 … against the same A)")
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", choices=("core", "search"), default="core")
    ap.add_argument("--home", type=Path, help="a seeded home, rebuilt in place (no copies)")
    ap.add_argument("--keep-search", action="store_true", help="tree A has the search index")
    args = ap.parse_args()
    if args.home is not None:
        in_place(args)
        return
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as d:
        seeded = Path(d) / "seeded"
        run(args.b[0], SEED, str(seeded), str(args.events),
            str(args.b[0].resolve() / "benchmarks"), args.seed)
        with open(seeded / "kairos.toml", "a", encoding="utf-8") as f:
            f.write('\n[search]\nembeddings = "off"\n')
        trees = {"A": args.a, **{f"B{i + 1}": b for i, b in enumerate(args.b)}}
        rates: dict[str, list[float]] = {name: [] for name in trees}
        for r in range(args.rounds):
            for name, tree in trees.items():
                home = Path(d) / f"{name}{r}"
                shutil.copytree(seeded, home)
                if name == "A" and not args.keep_search:
                    strip(home)
                rate = float(run(tree, CHILD, str(home)))
                shutil.rmtree(home)
                rates[name].append(rate)
                print(f"round {r + 1} {name} ({tree}): {rate:,.0f} events/s", flush=True)
        summary(rates, trees)


def in_place(args: argparse.Namespace) -> None:
    """Each tree rebuilds ``args.home`` in turn, A B A B …, in fresh processes."""
    trees = {"A": args.a, **{f"B{i + 1}": b for i, b in enumerate(args.b)}}
    rates: dict[str, list[float]] = {name: [] for name in trees}
    for r in range(args.rounds):
        for name, tree in trees.items():
            rates[name].append(float(run(tree, CHILD, str(args.home), "in-place")))
            print(f"round {r + 1} {name} ({tree}): {rates[name][-1]:,.0f} events/s", flush=True)
    summary(rates, trees)


def summary(rates: dict[str, list[float]], trees: dict[str, Path]) -> None:
    a = statistics.median(rates["A"])
    for name, xs in rates.items():
        m = statistics.median(xs)
        print(f"{name} ({trees[name]}): min {min(xs):,.0f} / median {m:,.0f} / "
              f"max {max(xs):,.0f} events/s, {m / a:.0%} of A")


if __name__ == "__main__":
    main()

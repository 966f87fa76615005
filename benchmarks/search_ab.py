"""Search latency of two trees of the code, interleaved (A B, B A, …), each
round in a fresh process (issue 12, item 8).

    .venv/bin/python benchmarks/search_ab.py HOME ROUNDS A_TREE B_TREE

``HOME``: a home seeded by ``bench_search.py`` (the pair ``bench/target`` of
10,000 events among 1,000,000, its vector cache filled).  A tree is a
``git archive`` of a commit with ``projections/`` and ``cli/`` copied into
``kairos/`` (the package's layout once installed).  Each round runs the
recall data set's queries and those of ``tests/data/recall/blind4.json``
(misspelt words, short forms, requests: the paths that read the pair's
vocabulary), words only and hybrid, and prints p50 / p99 in ms.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[2]); sys.path.insert(1, sys.argv[2] + '/benchmarks')
import kairos; assert kairos.__file__.startswith(sys.argv[2]), kairos.__file__
from bench_search import QUERIES, Guarded, Memory, WordLlamaEmbedder, pct
from kairos.agent.search import Search
extra = [q['query'] for q in json.load(open(sys.argv[3]))['queries']]
mem = Memory(sys.argv[1], recover=False)
embedder = Guarded(WordLlamaEmbedder())
mem.engine.embedder = embedder
out = {}
for name, e in (('lexical', None), ('hybrid', embedder)):
    s = Search(mem.engine.search_index, e)
    for label, qs in (('recall', QUERIES), ('blind4', extra)):
        s.search('bench', qs[0], user='target')
        ts = []
        for q in qs:
            t = time.perf_counter()
            s.search('bench', q, user='target')
            ts.append((time.perf_counter() - t) * 1000)
        out[f'{name}-{label}'] = (pct(ts, 0.5), pct(ts, 0.99))
mem.close()
print(json.dumps(out))
"""


def main() -> None:
    home, rounds = sys.argv[1], int(sys.argv[2])
    trees = {"A": sys.argv[3], "B": sys.argv[4]}
    queries = str(Path(__file__).resolve().parent.parent / "tests/data/recall/blind4.json")
    res: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for r in range(rounds):
        for k, tree in (list(trees.items()) if r % 2 == 0 else list(trees.items())[::-1]):
            out = subprocess.run([sys.executable, "-c", CHILD, home, tree, queries],
                                 capture_output=True, text=True, cwd="/tmp")
            if out.returncode:
                sys.exit(out.stderr[-3000:])
            found = json.loads(out.stdout.split("\n")[-2])
            for m, v in found.items():
                res.setdefault((m, k), []).append(tuple(v))
            print(r, k, {m: f"{v[0]:.1f}/{v[1]:.1f}" for m, v in found.items()}, flush=True)
    for (m, k), vs in sorted(res.items()):
        p50, p99 = sorted(v[0] for v in vs), sorted(v[1] for v in vs)
        print(f"| {m} | {k} | p50 {p50[0]:.1f} / {statistics.median(p50):.1f} / {p50[-1]:.1f} "
              f"| p99 {p99[0]:.1f} / {statistics.median(p99):.1f} / {p99[-1]:.1f} |")


if __name__ == "__main__":
    main()

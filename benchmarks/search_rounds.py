"""Search latency in rounds, each in a fresh process (issue 12, item 8).

    .venv/bin/python benchmarks/search_rounds.py HOME [--rounds 6]

``HOME``: a home seeded by ``bench_search.py`` (the pair ``bench/target``
of 10,000 events among 1,000,000), its vector cache filled (``bench_search``
does both).  Each round opens it in a new process (no recovery: the seed
writes no logs), runs ``bench_search.search_latency`` lexical and hybrid
(wordllama, vectors cached), and prints p50 / p99 and the first query.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys
sys.path.insert(0, sys.argv[2])
from bench_search import Guarded, Memory, WordLlamaEmbedder, search_latency
mem = Memory(sys.argv[1], recover=False)
embedder = Guarded(WordLlamaEmbedder())
mem.engine.embedder = embedder
print(json.dumps({name: search_latency(mem, e)
                  for name, e in (("lexical", None), ("hybrid", embedder))}))
mem.close()
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("home")
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent)
    print("| round | lexical p50 / p99 ms | hybrid p50 / p99 ms | hybrid first query |\n"
          "|---|---|---|---|")
    for r in range(args.rounds):
        out = subprocess.run([sys.executable, "-c", CHILD, args.home, here], check=True,
                             capture_output=True, text=True).stdout
        got = json.loads(out.strip().splitlines()[-1])
        lex, hyb = got["lexical"], got["hybrid"]
        print(f"| {r + 1} | {lex['p50_ms']:.1f} / {lex['p99_ms']:.1f} | "
              f"{hyb['p50_ms']:.1f} / {hyb['p99_ms']:.1f} | {hyb['first_ms']:.0f} ms |",
              flush=True)


if __name__ == "__main__":
    main()

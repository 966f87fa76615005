"""The search index's share of the read side's work, per event, A/B between
source trees (issue 12, item 8).

    git archive 26bde5c | tar -x -C /tmp/a-src
    ln -s ../projections /tmp/a-src/kairos/projections; ln -s ../cli /tmp/a-src/kairos/cli
    (the same for the tree under test)
    .venv/bin/python benchmarks/upkeep_apply.py --rounds 3 --batch 50 A=/tmp/a-src B=/tmp/b-src

``bench_search.py``'s upkeep rounds time what a user feels (durable
writes/s with the index on and off), but on two shared cores their spread
from round to round (±10 %) is larger than the index's cost.  This counts
the index's work alone: appends over 20 pairs with no follower, and after
every ``--batch`` of them the read side brought up in the calling thread
(as the follower would, in one batch), its process time counted; index
on, and off (the full-text index dropped, the line upkeep stubbed, as
``bench_search.py`` does).  Each tree and variant runs in a fresh process,
in turn, the order reversed every other round.  Run by hand, never as a
test.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CHILD = """
import sys, tempfile, time
from pathlib import Path
tree, variant, writes, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, tree)
import kairos
assert kairos.__file__.startswith(tree), kairos.__file__
from kairos.memory import Memory
from kairos.projections import indexer
from kairos.projections.search import drop_fts
FACTS = ["Sam likes green tea in the morning", "The weekly meeting moved to Monday at 10",
         "Lena's dentist appointment is on 12 May", "Max prefers window seats on long flights",
         "Das Team trifft sich donnerstags um 9:30 im Raum B", "Order 4417 ships on Friday"]
home = Path(tempfile.mkdtemp()) / "home"
home.mkdir()
(home / "kairos.toml").write_text('[search]\\nembeddings = "off"\\n')
Memory.init(str(home)).close()
mem = Memory(str(home), follow=False)
if variant == "off":
    with mem.engine.readmodel.engine.begin() as conn:
        drop_fts(conn)
    indexer._Lines.step = lambda *a, **k: None
    indexer._Lines.changes = lambda *a, **k: ([], [])
spent = []
for i in range(writes):
    mem.write("ada", "MEMORY.md", f"{FACTS[i % len(FACTS)]} #{i}", user=f"u{i % 20}")
    if (i + 1) % batch == 0:
        c = time.process_time()
        mem.engine._bring_up()
        spent.append(time.process_time() - c)
mem.close()
skip = max(1, len(spent) // 10)  # the first batches create the pairs' files
print(sum(spent[skip:]) / ((len(spent) - skip) * batch) * 1e6)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", help="NAME=PATH of a source tree")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--writes", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=50)
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.trees)
    res: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        order = [(name, v) for name in trees for v in ("on", "off")]
        for name, variant in order if r % 2 == 0 else reversed(order):
            out = subprocess.run([sys.executable, "-c", CHILD, trees[name], variant,
                                  str(args.writes), str(args.batch)],
                                 capture_output=True, text=True, check=True)
            res.setdefault((name, variant), []).append(float(out.stdout.split()[-1]))
    for name in trees:
        on, off = res[name, "on"], res[name, "off"]
        paired = [a - b for a, b in zip(on, off, strict=True)]
        print(f"{name}: read side per event, index on {statistics.median(on):.0f} us "
              f"(min {min(on):.0f}, max {max(on):.0f}), off {statistics.median(off):.0f} us "
              f"(min {min(off):.0f}, max {max(off):.0f}); the index's share, round by round "
              f"{[round(x) for x in paired]}, median {statistics.median(paired):.0f} us",
              flush=True)


if __name__ == "__main__":
    main()

"""``kairos rebuild --from-logs``, A/B between source trees, in interleaved
rounds (issue 13, item 3).

    git archive 712b814 | tar -x -C /tmp/a-src
    ln -s ../projections /tmp/a-src/kairos/projections; ln -s ../cli /tmp/a-src/kairos/cli
    (the same for the tree under test, or pass . for this checkout)
    .venv/bin/python benchmarks/bench_scale.py seed /tmp/h100k --events 100000
    .venv/bin/python benchmarks/fromlogs_ab.py /tmp/h100k --rounds 5 A=/tmp/a-src B=/tmp/b-src

Each round, each tree in turn: the home's logs and settings copied to a
fresh directory without a database and synced to disk (outside the
timing), then the ``kairos`` command of that tree run in a new process;
events/s counted from the store it restored.  Run by hand, never as a test.
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
import time

RUN = ("import sys; tree = sys.argv.pop(1); sys.path.insert(0, tree); import kairos; "
       "assert kairos.__file__.startswith(tree), kairos.__file__; "
       "from kairos.cli.main import cli; sys.exit(cli())")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("home")
    ap.add_argument("trees", nargs="+", help="NAME=PATH of a source tree")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.trees)
    rates: dict[str, list[float]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as scratch:
        copy = os.path.join(scratch, "restore")
        for r in range(args.rounds):
            for name, tree in trees.items():
                shutil.rmtree(copy, ignore_errors=True)
                os.makedirs(copy)
                shutil.copytree(os.path.join(args.home, "logs"), os.path.join(copy, "logs"))
                shutil.copy(os.path.join(args.home, "kairos.toml"), copy)
                os.sync()
                t = time.perf_counter()
                subprocess.run([sys.executable, "-c", RUN, os.path.abspath(tree), "--home", copy,
                                "rebuild", "--from-logs"], check=True, capture_output=True,
                               cwd="/")
                wall = time.perf_counter() - t
                with sqlite3.connect(os.path.join(copy, "kairos.db")) as conn:
                    n = conn.execute("SELECT count(*) FROM stored_events").fetchone()[0]
                rates[name].append(n / wall)
                print(f"round {r + 1} {name}: {wall:.2f} s, {n / wall:,.0f} events/s", flush=True)
    for name, xs in rates.items():
        print(f"| {name} | {min(xs):,.0f} | {statistics.median(xs):,.0f} | {max(xs):,.0f} |")


if __name__ == "__main__":
    main()

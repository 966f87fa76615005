"""How fast the ``kairos`` command starts, against bare Python and click.

Agents and cron jobs shell out to ``kairos`` once per call, so its start-up
is paid on every call.  Each round runs every contender once, in turn
(interleaved: bare, click, --version, --help, read, bare, click, …), so a
machine that gets busier or quieter part-way affects all of them alike; the
table gives min / median / max wall time per contender and the ratio of the
medians to ``python -c "import click"`` (the floor of any click program).

    python benchmarks/bench_startup.py [--rounds 30] [--before DIR]

``--before DIR``: also time an earlier Kairos, installed with
``pip install --no-deps --target DIR <its source>`` (run with
``PYTHONPATH=DIR``, through its own ``DIR/bin/kairos``), in the same rounds.

``read`` reads one file of a small SQLite home (made in a temporary folder):
a plain current read, which the quick read answers with ``sqlite3`` alone
(:mod:`kairos.engine.quickread`); ``read, sample home`` the same on a copy
of the sample home (three weeks of day files, whose ends the quick read
checks against the store); ``read --stream-version`` a read of the same
file that takes the full path (the read-only open of the store and the
read model).  The last line imports the two libraries the full path needs
(the read model is SQLAlchemy, the event store eventsourcing): its floor.
The commands run with bytecode caching on (``PYTHONDONTWRITEBYTECODE``
removed from their environment), as an installed package runs: with it set,
an editable install compiles every Kairos module from source on every start.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def kairos_command() -> list[str]:
    """The installed console script next to this interpreter, as users run it."""
    script = Path(sys.executable).with_name("kairos")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kairos.cli"]


def contenders(home: str, sample: str, before: str | None
               ) -> dict[str, tuple[list[str], dict[str, str]]]:
    k = kairos_command()
    read = ["--home", home, "read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md"]
    plain = {
        "python -c pass": [sys.executable, "-c", "pass"],
        'python -c "import click"': [sys.executable, "-c", "import click"],
        "kairos --version": [*k, "--version"],
        "kairos --help": [*k, "--help"],
        "kairos read": [*k, *read],
        "kairos read, sample home": [*k, "--home", sample, *read[2:]],
        "kairos read --stream-version 2 (full path)": [*k, *read, "--stream-version", "2"],
        # The floor of any command that opens a home: the store's libraries.
        "python -c \"import sqlalchemy, eventsourcing.sqlite\"":
            [sys.executable, "-c", "import sqlalchemy, eventsourcing.sqlite"],
    }
    runs = {name: (cmd, ENV) for name, cmd in plain.items()}
    if before:
        old, env = [os.path.join(before, "bin", "kairos")], {**ENV, "PYTHONPATH": before}
        for args in (["--version"], ["--help"]):
            runs[f"before: kairos {args[0]}"] = ([*old, *args], env)
        runs["before: kairos read"] = ([*old, *read], env)
    return runs


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--before", help="an earlier Kairos installed with pip --target")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        k = kairos_command()
        subprocess.run([*k, "--home", home, "init"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([*k, "--home", home, "write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md",
                        "Sam prefers tea"], check=True, stdout=subprocess.DEVNULL)
        sample = os.path.join(tmp, "sample")
        shutil.copytree(Path(__file__).resolve().parent.parent / "logs",
                        os.path.join(sample, "logs"))
        subprocess.run([*k, "--home", sample, "rebuild", "--from-logs"], check=True,
                       stdout=subprocess.DEVNULL)
        runs = contenders(home, sample, args.before)
        load = os.getloadavg()[0]
        for cmd, env in runs.values():  # warm the file cache and the bytecode
            timed(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, (cmd, env) in runs.items():
                times[name].append(timed(cmd, env))
    floor = statistics.median(times['python -c "import click"'])
    print(f"{args.rounds} interleaved rounds, {os.cpu_count()} CPUs, load average "
          f"{load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end\n")
    print("| command | min ms | median ms | max ms | median / import click |")
    print("|---|---:|---:|---:|---:|")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"| `{name}` | {min(ts) * 1000:.0f} | {med * 1000:.0f} | {max(ts) * 1000:.0f} "
              f"| {med / floor:.2f}× |")


if __name__ == "__main__":
    main()

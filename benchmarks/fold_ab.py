"""Rebuild a home in place with the one-pass fold and with the fold stream by
stream (``Indexer.fold_cap = 0``), in interleaved rounds: what the second read
of the store costs a rebuild whose home has more files than the cap.

    .venv/bin/python benchmarks/fold_ab.py HOME ROUNDS

The order alternates between rounds (A B, B A, …), so that whatever the
machine does in the second half of a round falls on both ways.
"""

from __future__ import annotations

import sys
import time

from kairos.memory import Memory

WAYS = ("one pass", "by stream")


def main() -> None:
    home, rounds = sys.argv[1], int(sys.argv[2])
    out: dict[str, list[float]] = {way: [] for way in WAYS}
    for r in range(rounds):
        for way in (WAYS if r % 2 == 0 else tuple(reversed(WAYS))):
            with Memory(home) as mem:
                if way == "by stream":
                    mem.engine.indexer.fold_cap = 0
                started = time.perf_counter()
                report = mem.rebuild()
                out[way].append(time.perf_counter() - started)
                print(f"round {r + 1} {way}: {out[way][-1]:.2f} s, {report.events} events, "
                      f"{report.events / out[way][-1]:,.0f} events/s", flush=True)
    for way, times in out.items():
        times.sort()
        print(f"{way}: min {times[0]:.2f} median {times[len(times) // 2]:.2f} max {times[-1]:.2f} s")


if __name__ == "__main__":
    main()

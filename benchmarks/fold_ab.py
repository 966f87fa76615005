"""Rebuild a home in place with the one-pass fold and with the fold stream by
stream (``Indexer.fold_cap = 0``), in interleaved rounds: what the second read
of the store costs a rebuild whose home has more files than the cap.

    .venv/bin/python benchmarks/fold_ab.py HOME ROUNDS
"""
import resource, sys, time
from kairos.memory import Memory
home, rounds = sys.argv[1], int(sys.argv[2])
out = {"one pass": [], "by stream": []}
for r in range(rounds):
    for mode in (("one pass", "by stream") if r % 2 == 0 else ("by stream", "one pass")):
        with Memory(home) as m:
            if mode == "by stream":
                m.engine.indexer.fold_cap = 0
            t = time.perf_counter()
            report = m.rebuild()
            out[mode].append(time.perf_counter() - t)
            print(f"round {r + 1} {mode}: {out[mode][-1]:.2f} s, {report.events} events, "
                  f"{report.events / out[mode][-1]:,.0f} events/s", flush=True)
for mode, xs in out.items():
    xs.sort()
    print(f"{mode}: min {xs[0]:.2f} median {xs[len(xs) // 2]:.2f} max {xs[-1]:.2f} s")

"""Load benchmark of ``kairos serve``: durable writes over HTTP from N
concurrent clients, against a bare eventsourcing application saving one
event per commit.

Run by hand (not part of the test suite); the figures go in docs/benchmarks.md.

    .venv/bin/python benchmarks/bench_serve.py [--writes 2000] [--clients 1,8,32,128] [--rounds 3]

Each round runs, in turn (the order rotating round by round), in fresh
homes on SQLite:

* ``serve-N``: a ``kairos serve`` process on 127.0.0.1 and a load generator
  (httpx, asyncio) keeping N requests in flight, ``--writes`` POSTs to
  ``/v1/agents/{agent}/write`` over 50 pairs (bounded also by
  ``--seconds``); a response comes only once its event is committed and its
  log entry fsynced, so writes/s is durable writes/s, timed from the first
  request to the last response (the read side then catches up on its own).
* ``bare-mem``: bench_core's strongest bare baseline, an eventsourcing
  application on the same SQLite settings keeping its aggregates in memory,
  one event per commit, in-process (no HTTP at all).

Writes/s (min / median / max over rounds), latency p50 / p99 pooled over
rounds, and each ``serve-N`` median over the ``bare-mem`` median.  The load
generator runs on the same two cores as the server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_core import Run, bare, pct

from kairos.memory import Memory

PAIRS = 50


def serve_run(tmp: Path, n: int, clients: int, seconds: float) -> Run:
    import httpx

    home = tmp / "home"
    with Memory.init(str(home)) as m:
        key = m.keys.create("admin", by="bench")[0]
        for p in range(PAIRS):
            m.write("ada", "MEMORY.md", "warm-up", user=f"u{p}")
    log = tmp / "serve.log"  # a file, not a pipe: the access log would fill a pipe and block
    with open(log, "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "kairos.cli", "--home", str(home),
                                 "serve", "--port", "0"], stderr=err)
    found = None
    while found is None:
        time.sleep(0.05)
        found = re.search(r"on (http://127\.0\.0\.1:\d+)", log.read_text())
    url = found.group(1)
    for _ in range(300):
        try:
            if httpx.get(url + "/health").status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.05)

    async def load() -> Run:
        lat: list[float] = []
        sent = 0
        deadline = time.perf_counter() + seconds

        async def worker() -> None:
            # A client of its own per worker, one connection each: httpx's
            # shared pool costs the load generator more CPU per request as
            # the connections grow, on the cores the server needs.
            # TCP_NODELAY: httpx sends a POST's headers and body in two
            # writes, and Nagle's algorithm would hold the body for the
            # server's delayed ACK (40 ms a request on Linux).
            nonlocal sent
            transport = httpx.AsyncHTTPTransport(
                limits=httpx.Limits(max_connections=1),
                socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
            async with httpx.AsyncClient(base_url=url, transport=transport, timeout=60,
                                         headers={"Authorization": f"Bearer {key}"}) as http:
                while sent < n and time.perf_counter() < deadline:
                    i = sent
                    sent += 1
                    t = time.perf_counter()
                    r = await http.post("/v1/agents/ada/write", json={
                        "file": "MEMORY.md", "text": f"fact number {i} about the user",
                        "user": f"u{i % PAIRS}", "mode": "replace"})
                    assert r.status_code == 200, r.text
                    lat.append((time.perf_counter() - t) * 1000)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        return len(lat) / (time.perf_counter() - start), lat

    try:
        return asyncio.run(load())
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--writes", type=int, default=2000)
    parser.add_argument("--clients", default="1,8,32,128")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    contenders = {f"serve-{c}": int(c) for c in args.clients.split(",")}
    names = [*contenders, "bare-mem"]
    runs: dict[str, list[Run]] = {name: [] for name in names}
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as d:
                if name == "bare-mem":
                    runs[name].append(bare(Path(d), args.writes, PAIRS, None, reload=False))
                else:
                    runs[name].append(serve_run(Path(d), args.writes, contenders[name],
                                                args.seconds))
            rate, lat = runs[name][-1]
            print(f"  round {r + 1} {name:10} {rate:8.0f} writes/s  p50 {pct(lat, 0.5):7.2f} ms"
                  f"  p99 {pct(lat, 0.99):7.2f} ms", flush=True)
    base = statistics.median(x for x, _ in runs["bare-mem"])
    print(f"\nSQLite, {args.writes} durable writes over {PAIRS} pairs, {args.rounds} rounds\n"
          "| contender | writes/s min | median | max | p50 ms | p99 ms | median / bare-mem |\n"
          "|---|---:|---:|---:|---:|---:|---:|")
    for name in names:
        rates = [x for x, _ in runs[name]]
        lat = [v for _, ls in runs[name] for v in ls]
        print(f"| {name} | {min(rates):,.0f} | {statistics.median(rates):,.0f} | "
              f"{max(rates):,.0f} | {pct(lat, 0.5):.2f} | {pct(lat, 0.99):.2f} | "
              f"{statistics.median(rates) / base:.2f}× |")


if __name__ == "__main__":
    main()

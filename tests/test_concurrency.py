"""Several processes writing to the same pair at once lose nothing and keep order."""

from __future__ import annotations

import multiprocessing
import re
from pathlib import Path

from kairos.memory import Memory

WRITERS, WRITES = 4, 15


def writer(home: str, db_url: str, n: int) -> None:
    with Memory(home, db_url) as m:
        for i in range(WRITES):
            m.write("ada", "MEMORY.md", f"writer {n} fact {i}", user="sam")
            if i % 5 == 0:
                m.write("ada", "MEMORY.md", f"kim fact {n}.{i}", user="kim")


def test_concurrent_writers_lose_nothing_and_keep_every_order(mem: Memory, home: Path,
                                                              db_url: str) -> None:
    mem.write("ada", "MEMORY.md", "opening fact", user="sam")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=writer, args=(str(home), db_url, n)) for n in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with Memory(str(home), db_url) as m:
        lines = m.read("ada", "MEMORY.md", user="sam").content.splitlines()
        assert len(lines) == 1 + WRITERS * WRITES
        for n in range(WRITERS):  # each writer's facts appear in its own order
            mine = [line for line in lines if line.startswith(f"writer {n} ")]
            assert mine == [f"writer {n} fact {i}" for i in range(WRITES)]
        history = m.history("ada", user="sam")
        assert [r["version"] for r in history] == list(range(1, len(history) + 1))
        positions = [int(p) for p in re.findall(r"^## (\d+) ", "".join(
            f.read_text() for f in sorted((home / "logs").rglob("*.md"))), re.M)]
        assert positions == sorted(positions) and len(positions) == len(set(positions))
        assert len(positions) == m.engine.store.max_position() or db_url.startswith("postgres")
        assert m.verify().ok

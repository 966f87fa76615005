"""verify is exact under load: writers in other processes, many short
verifies meanwhile, not one false alarm."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from kairos.memory import Memory

WRITER = """
import os, sys, time
from kairos.memory import Memory
home, url, user, stop = sys.argv[1:5]
with Memory(home, url) as m:
    i = 0
    while not os.path.exists(stop) and i < 400:
        m.write("ada", "MEMORY.md", f"{user} fact {i}", user=user)
        if i % 7 == 0:
            m.end_session("ada", user)
        i += 1
        time.sleep(0.005)
"""
VERIFIES = 50


def test_verify_raises_no_false_alarm_while_others_write(mem: Memory, home: Path,
                                                          db_url: str, tmp_path: Path) -> None:
    mem.write("ada", "SOUL.md", "I am Ada.")
    mem.close()
    stop = tmp_path / "stop"
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(home), db_url, user,
                                 str(stop)], env=env) for user in ("sam", "kim")]
    reports = []
    try:
        time.sleep(0.5)  # the writers are writing
        for _ in range(VERIFIES):
            with Memory(str(home), db_url, read_only=True) as m:
                reports.append(m.verify())
    finally:
        stop.touch()
        for w in writers:
            assert w.wait(timeout=120) == 0
    false_alarms = [r.problems for r in reports if not r.ok]
    assert false_alarms == []
    positions = [r.position for r in reports]
    assert len(reports) == VERIFIES and positions[-1] > positions[0]  # it ran under load
    with Memory(str(home), db_url) as m:
        assert m.verify().ok

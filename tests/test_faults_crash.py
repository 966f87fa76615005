"""kill -9 at every fault point, and at a random moment of a writer's loop:
the next open completes what was acknowledged, exactly once, and verifies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kairos.faults import CRASH_STATUS, POINTS
from kairos.memory import Memory
from tests.faultkit import kairos_cli
from tests.test_recovery import log_text


def recovered(home: Path, db_url: str) -> Memory:
    """The next open (writable: it repairs), checked."""
    m = Memory(str(home), db_url)
    report = m.verify()
    assert report.ok, report.problems
    return m


def seed(mem: Memory) -> None:
    mem.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")
    mem.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")
    mem.close()


CRASHING = {  # the command that passes each point
    "after-store-commit": ("write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "crashed here"),
    "log-append": ("write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "crashed here"),
    "after-log-append": ("write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "crashed here"),
    "before-dream-record": ("dream", "--agent", "ada", "--user", "sam", "--force"),
    "after-seal-commit": ("seal",),
}


def test_every_fault_point_has_a_crash_test() -> None:
    assert set(CRASHING) == set(POINTS)


@pytest.mark.parametrize("point", POINTS)
def test_kill_at_each_fault_point_then_the_next_open_completes_it(
        mem: Memory, home: Path, db_url: str, point: str) -> None:
    seed(mem)
    died = kairos_cli(home, db_url, *CRASHING[point], fault=point)
    assert died.returncode == CRASH_STATUS, died.stderr
    with recovered(home, db_url) as m:
        memory = m.read("ada", "MEMORY.md", user="sam").content
        if CRASHING[point][0] == "write":  # committed before the crash: kept, once
            assert memory == "Sam likes tea.\nSam likes tea.\ncrashed here\n"
            assert log_text(home).count("      crashed here\n") == 1
            assert (home / "memory/ada/users/sam/MEMORY.md").read_text() == memory
        elif point == "before-dream-record":  # nothing recorded: dream again
            assert m.dreams.list() == []
            assert m.dreams.dream("ada", "sam", force=True).status == "proposed"
        else:  # the seal's event is there: its file is written on open
            files = list((home / "checkpoints").glob("checkpoint-*.json"))
            assert len(files) == 1
            check = m.verify_checkpoint(str(files[0]))
            assert check.ok, check.message
            assert not list((home / "checkpoints").glob(".tmp-*"))


def test_a_signed_seal_killed_before_its_file_is_completed_signed(
        mem: Memory, home: Path, db_url: str, tmp_path: Path) -> None:
    seed(mem)
    key = tmp_path / "signing.pem"
    assert kairos_cli(home, db_url, "keygen", str(key)).returncode == 0
    died = kairos_cli(home, db_url, "seal", "--key", str(key), fault="after-seal-commit")
    assert died.returncode == CRASH_STATUS
    assert not (home / "checkpoints").exists() or not list((home / "checkpoints").iterdir())
    with recovered(home, db_url) as m:
        path = next((home / "checkpoints").glob("checkpoint-*.json"))
        data = json.loads(path.read_text())
        assert data["signature"] and data["size"] == 3  # opened, two writes
        assert m.verify_checkpoint(str(path), str(key) + ".pub").ok
    # A seal that completes writes the same kind of file, atomically.
    done = kairos_cli(home, db_url, "seal", "--key", str(key), "--json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["signature"]


WRITER = """
import sys
from kairos.memory import Memory
m = Memory(sys.argv[1], sys.argv[2])
i = 0
while True:
    r = m.write("ada", "MEMORY.md", f"fact {i}", user="sam", idempotency_key=f"w{i}")
    print(r.event_id, flush=True)
    i += 1
"""


def test_kill_9_at_a_random_moment_loses_no_acknowledged_write(
        mem: Memory, home: Path, db_url: str) -> None:
    seed(mem)
    for delay in (0.7, 1.3):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(home), db_url],
                                stdout=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(Path.cwd())})
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        acknowledged = proc.communicate()[0].split()
        assert proc.returncode == -signal.SIGKILL
        with recovered(home, db_url) as m:
            ids = [r["event_id"] for r in m.history("ada", user="sam")]
            assert set(acknowledged) <= set(ids)
            assert len(ids) == len(set(ids))

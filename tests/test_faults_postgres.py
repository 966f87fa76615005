"""PostgreSQL lost mid-load: a writer fails fast with a clear error while the
server is down, and works again within seconds of its return.

A throwaway server of its own (``scripts/pg-start`` into a temporary folder,
on a free port), so the suite's shared server is never stopped.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kairos.errors import KairosError, StoreUnavailable
from kairos.memory import Memory
from tests.faultkit import ROOT

DOWN = 8.0  # seconds the server stays down
FAST = 6.0  # a write fails within this long while it is down
BACK = 5.0  # and works within this long after it is back


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, folder: str, port: int):
        self.folder, self.port = folder, port
        self.url = subprocess.run([str(ROOT / "scripts/pg-start"), folder, str(port)],
                                  capture_output=True, text=True, check=True).stdout.strip()
        self.bin = sorted(glob.glob("/usr/lib/postgresql/*/bin"))[-1]

    def ctl(self, *args: str) -> None:
        owner = Path(self.folder, "data").owner()
        cmd = [f"{self.bin}/pg_ctl", "-D", f"{self.folder}/data", *args]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", owner, "--", *cmd]
        subprocess.run(cmd, check=True, capture_output=True)

    def stop(self) -> None:
        self.ctl("-m", "fast", "-w", "stop")

    def start(self) -> None:
        self.ctl("-l", f"{self.folder}/server.log", "-w", "-o",
                 f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "start")


@pytest.fixture
def server() -> Iterator[Server]:
    if not os.environ.get("KAIROS_TEST_PG") or not glob.glob("/usr/lib/postgresql/*/bin"):
        pytest.skip("needs PostgreSQL (KAIROS_TEST_PG, and its binaries to start a server)")
    folder = tempfile.mkdtemp(prefix="kairos-pg-loss-")
    srv = Server(folder, _free_port())
    try:
        yield srv
    finally:
        subprocess.run([str(ROOT / "scripts/pg-stop"), folder], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_writer_fails_fast_while_the_server_is_down_and_recovers(server: Server,
                                                                    tmp_path: Path) -> None:
    mem = Memory.init(str(tmp_path / "home"), server.url)
    calls: list[tuple[float, float, BaseException | None]] = []
    stop = threading.Event()

    def writer() -> None:
        i = 0
        while not stop.is_set():
            began = time.monotonic()
            try:
                mem.write("ada", "MEMORY.md", f"fact {i}", user="sam")
                error = None
            except Exception as e:
                error = e
            calls.append((began, time.monotonic(), error))
            i += 1
            time.sleep(0.05)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        time.sleep(1.0)
        server.stop()
        down = time.monotonic()
        time.sleep(DOWN)
        server.start()
        up = time.monotonic()
        time.sleep(BACK + 2)
    finally:
        stop.set()
        thread.join()
    failed = [(b, e, err) for b, e, err in calls if err is not None]
    assert failed, "no write failed while the server was down"
    for began, ended, error in failed:
        assert isinstance(error, KairosError), repr(error)  # never a raw driver error
        assert isinstance(error, StoreUnavailable) and server.url.split("@")[-1] in str(error)
        assert ended - began < FAST, (ended - began, error)
    recovered = [e for b, e, err in calls if err is None and e > up]
    assert recovered and recovered[0] - up < BACK
    assert all(err is None for b, e, err in calls if b > up + BACK)
    acknowledged = sum(err is None for _, _, err in calls)
    rows = mem.history("ada", user="sam")
    assert len([r for r in rows if r["type"] == "MemoryWritten"]) >= acknowledged
    assert mem.verify().ok
    mem.close()
    assert down < up

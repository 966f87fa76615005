"""Progress: the library reports phases and counts to a port, silent by
default; the command line draws them on a terminal and prints nothing when
standard error is piped, and ``--json`` stays one document either way."""

from __future__ import annotations

import io
import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kairos.cli.progress import TerminalProgress, progress_for
from kairos.memory import Memory
from kairos.progress import SILENT, counted

ROOT = Path(__file__).resolve().parent.parent


class Recorder:
    """A Progress that remembers what it heard."""

    def __init__(self) -> None:
        self.phases: list[list[object]] = []  # [name, total, unit, count]
        self.ended = 0

    def phase(self, name: str, total: int | None = None, unit: str = "events") -> None:
        self.phases.append([name, total, unit, 0])

    def advance(self, n: int = 1) -> None:
        self.phases[-1][3] += n  # type: ignore[operator]

    def done(self) -> None:
        self.ended += 1

    def counts(self) -> dict[str, object]:
        return {str(p[0]): p[3] for p in self.phases}


def test_counted_reports_in_batches_and_the_remainder() -> None:
    heard = Recorder()
    heard.phase("x")
    assert list(counted(range(1100), heard, every=512)) == list(range(1100))
    assert heard.phases[0][3] == 1100
    assert list(counted(range(3), SILENT)) == [0, 1, 2]


def test_the_renderer_draws_phase_count_rate_and_time() -> None:
    now = [100.0]
    out = io.StringIO()
    bar = TerminalProgress(out, "verify", clock=lambda: now[0], interval=0.1)
    bar.phase("log chains", 2000, "entries")
    now[0] += 0.05
    bar.advance(500)  # within the interval: not drawn
    now[0] += 0.45
    bar.advance(500)
    now[0] += 0.5
    bar.phase("read side")
    bar.done()
    bar.done()  # a second end draws nothing more
    frames = out.getvalue().split("\r")[1:]
    assert frames == [
        "verify: log chains: 0/2,000 entries (0%), 0.0 s\x1b[K",
        "verify: log chains: 1,000/2,000 entries (50%), 2,000/s, 0.5 s\x1b[K",
        "verify: log chains: 1,000/2,000 entries (50%), 1,000/s, 1.0 s\x1b[K\n",
        "verify: read side, 0.0 s\x1b[K",
        "verify: read side, 0.0 s\x1b[K\n",
    ]


def test_nothing_is_drawn_when_standard_error_is_not_a_terminal() -> None:
    assert progress_for("verify", io.StringIO()) is SILENT


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    shutil.copytree(ROOT / "logs", home / "logs")
    return home


def test_the_long_operations_report_their_phases(sample: Path, tmp_path: Path) -> None:
    heard = Recorder()
    with Memory(sample, recover=False) as mem:
        report = mem.rebuild(from_logs=True, progress=heard)
    assert [p[0] for p in heard.phases] == [
        "import from the logs", "recover", "repair the logs", "locate log entries", "project",
        "index and compare files"]
    assert heard.counts()["import from the logs"] == report.imported == 58
    assert heard.counts()["project"] == heard.counts()["repair the logs"] == 58
    assert heard.ended == 1
    with Memory(sample) as mem:
        heard = Recorder()
        assert mem.verify(heard).ok
        assert heard.counts() == {"log chains": 58, "store and logs agree": 58, "read side": 58}
        heard = Recorder()
        mem.seal(progress=heard)  # two events: the system stream opens, the seal
        assert heard.counts() == {"hash every event": 58, "record the checkpoint": 0}
        heard = Recorder()
        data = mem.audit.export("ada", "sam", str(tmp_path / "bundle"), progress=heard)
        assert heard.counts() == {"hash every event": 60, "choose the pair's events": 60,
                                  "write proofs": data["events"]}
        heard = Recorder()
        from kairos.dream.runner import run
        summary = run(mem.dreams, progress=heard)
        assert heard.phases == [["gate and distil", 6, "pairs", summary.examined]] and heard.ended == 1


def _run_with_stderr_on_a_terminal(home: Path, *args: str) -> tuple[str, str, int]:
    """Run kairos with standard output piped and standard error on a pty."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "KAIROS_DATABASE_URL"}
    env["TERM"] = "xterm"
    proc = subprocess.Popen([sys.executable, "-m", "kairos.cli", "--home", str(home), *args],
                            stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    return out, err.decode(), proc.wait(timeout=60)


def test_a_terminal_sees_progress_and_a_pipe_does_not(sample: Path) -> None:
    out, err, code = _run_with_stderr_on_a_terminal(sample, "rebuild", "--from-logs", "--json")
    assert code == 0, err
    assert out.count("\n") == 1 and json.loads(out)["imported"] == 58  # still one document
    assert "rebuild: import from the logs: 58 entries" in err
    assert "rebuild: project: 58/58 events (100%)" in err
    out, err, code = _run_with_stderr_on_a_terminal(sample, "verify")
    assert code == 0 and out.startswith("ok: 58 events")
    assert "verify: log chains: 58/58 entries (100%)" in err and "verify: read side" in err
    piped = subprocess.run([sys.executable, "-m", "kairos.cli", "--home", str(sample), "verify",
                            "--json"], capture_output=True, text=True, timeout=60)
    assert (piped.returncode, piped.stderr) == (0, "")
    assert piped.stdout.count("\n") == 1 and json.loads(piped.stdout)["ok"] is True

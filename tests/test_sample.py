"""The committed sample home is reproducible and restores cleanly."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from kairos.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent


def test_the_sample_logs_regenerate_byte_for_byte(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts/make_sample.py"), str(tmp_path)],
                   check=True, capture_output=True)
    committed = sorted(p.relative_to(ROOT) for p in (ROOT / "logs").rglob("*.md"))
    made = sorted(p.relative_to(tmp_path) for p in (tmp_path / "logs").rglob("*.md"))
    assert made == committed and len(made) > 10
    for rel in committed:
        assert (tmp_path / rel).read_bytes() == (ROOT / rel).read_bytes(), rel


def test_the_readme_main_job_runs_on_a_copy_of_the_sample(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "logs", tmp_path / "logs")
    runner = CliRunner()

    def kairos(*args: str) -> str:
        out = runner.invoke(cli, ["--home", str(tmp_path), *args], catch_exceptions=False)
        assert out.exit_code == 0, out.output
        return out.stdout

    assert kairos("rebuild", "--from-logs").startswith("imported 58 events from the logs")
    assert kairos("verify").startswith("ok: 58 events in 8 streams")
    memory = kairos("read", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md")
    assert "Sam is traveling to Singapore in July." in memory
    assert "peanuts" not in memory  # retracted: it was Kim's allergy
    assert "imported 0 events" in kairos("rebuild", "--from-logs")  # running it again is safe
    assert kairos("dream", "--all").startswith("proposed ")
    shown = kairos("dream", "show", "--agent", "ada", "--user", "sam")
    assert "+Sam's dentist appointment moved to 3 November 2026." in shown
    assert "superseded by: Sam's dentist appointment moved to 3 November 2026." in shown

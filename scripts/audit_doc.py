"""Regenerate the worked examples in docs/audit.md from the sample home.

Each question's command runs, with frozen clocks, in a copy of the sample
home (its working directory), and its real output goes between the
``<!-- q:NAME -->`` markers.  ``--check`` fails when the doc is stale.

    python scripts/audit_doc.py [--check]
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner
from freezegun import freeze_time

from kairos.cli.main import cli

sys.path.insert(0, str(Path(__file__).parent))
from docgen import run, splice  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "audit.md"

# (marker, time, shown?, command) — run in order; unshown steps set the scene.
STEPS: list[tuple[str, str, bool, list[str]]] = [
    ("", "2026-10-26T03:00:00Z", False, ["dream", "--agent", "ada", "--user", "sam"]),
    ("", "2026-10-26T09:05:00Z", False, ["dream", "approve", "{dream}", "--reviewer", "alice"]),
    ("written", "2026-10-27T09:00:00Z", True,
     ["audit", "--agent", "ada", "--user", "sam", "--since", "2026-10-12", "--until",
      "2026-10-14T23:59:59Z"]),
    ("withdrawn", "2026-10-27T09:00:00Z", True, ["audit", "--type", "MemoryRetracted"]),
    ("csv", "2026-10-27T09:00:00Z", True,
     ["audit", "--agent", "ada", "--user", "kim", "--format", "csv"]),
    ("knew", "2026-10-27T09:00:00Z", True,
     ["audit", "context", "--agent", "ada", "--user", "sam", "--as-of", "2026-10-12T12:00:00Z"]),
    ("trace", "2026-10-27T09:00:00Z", True,
     ["trace", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md", "--grep", "dentist"]),
    ("diff", "2026-10-27T09:00:00Z", True,
     ["diff", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md", "0", "1"]),
    ("", "2026-10-27T09:00:00Z", False, ["keygen", "signing.pem"]),
    ("seal", "2026-10-27T23:00:00Z", True, ["seal", "--key", "signing.pem"]),
    ("verify", "2026-10-28T08:00:00Z", True,
     ["verify", "--checkpoint", "checkpoints/checkpoint-000060.json", "--public-key",
      "signing.pem.pub"]),
    ("export", "2026-10-28T08:00:00Z", True,
     ["export", "--agent", "ada", "--user", "kim", "bundle-ada-kim"]),
    ("bundle", "2026-10-28T08:00:00Z", True,
     ["verify", "--bundle", "bundle-ada-kim", "--public-key", "signing.pem.pub"]),
]


def run_all() -> dict[str, str]:
    runner = CliRunner()
    shown: dict[str, str] = {}
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(ROOT / "logs", Path(tmp) / "logs")
        os.chdir(tmp)
        try:
            runner.invoke(cli, ["--home", ".", "rebuild", "--from-logs"], catch_exceptions=False)
            dream_id = ""
            for marker, when, show, args in STEPS:
                args = [a.replace("{dream}", dream_id) for a in args]
                with freeze_time(when):
                    result = runner.invoke(cli, ["--home", ".", *args], catch_exceptions=False)
                if args[0] == "dream" and args[1] == "--agent":
                    dream_id = result.stdout.split()[1]
                if show:
                    text = " ".join(f'"{a}"' if " " in a else a for a in args)
                    shown[marker] = (f"```console\n$ kairos {text}\n"
                                     f"{result.output.rstrip()}\n```")
        finally:
            os.chdir(here)
    return shown


def render(text: str) -> str:
    for marker, block in run_all().items():
        text = splice(text, f"<!-- q:{marker} -->", f"<!-- /q:{marker} -->", block)
    return text


if __name__ == "__main__":
    run(DOC, render, "audit_doc.py")

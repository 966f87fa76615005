"""Regenerate the worked example in docs/dream.md from the sample home.

Runs a night on a copy of the sample home, with frozen clocks, through the
real command line, and writes each command with its real output between the
demo markers of docs/dream.md.  ``--check`` fails when the doc is stale.

    python scripts/dream_demo.py [--check]
"""

from __future__ import annotations

import contextlib
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
DOC = ROOT / "docs" / "dream.md"
START, END = "<!-- demo:start -->", "<!-- demo:end -->"

STEPS: list[tuple[str, str, list[str]]] = [
    ("2026-10-26T03:00:00Z", "cron, 03:00: every pair through the gate",
     ["dream", "--all"]),
    ("2026-10-26T08:55:00Z", "the reviewer's morning: what is waiting", ["dream", "list", "--pending"]),
    ("2026-10-26T09:00:00Z", "the proposal, line by line", ["dream", "show", "{dream}"]),
    ("2026-10-26T09:05:00Z", "approve it", ["dream", "approve", "{dream}", "--reviewer", "alice"]),
    ("2026-10-26T09:06:00Z", "the published file",
     ["read", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md"]),
    ("2026-10-26T09:07:00Z", "where did the old appointment go?",
     ["trace", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md", "--grep", "next Tuesday"]),
    ("2026-10-26T12:00:00Z", "a write after the dream",
     ["write", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md",
      "Sam's dentist appointment is at 14:00."]),
    ("2026-10-26T17:00:00Z", "the versions of the file",
     ["versions", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md"]),
    ("2026-10-26T17:05:00Z", "a bad night? roll back (writes after the cutoff stay)",
     ["rollback", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md", "--to", "0",
      "--reason", "merged too eagerly"]),
    ("2026-10-26T17:06:00Z", "the file again",
     ["read", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md"]),
    ("2026-10-26T17:10:00Z", "and forward again",
     ["rollback", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md", "--to", "1",
      "--reason", "it was right after all"]),
    ("2026-10-26T17:15:00Z", "the home's health", ["stats"]),
]


def render() -> str:
    runner = CliRunner()
    out = [""]
    # Run in the home, as the doc shows the commands (hints then name no --home).
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        home = Path(tmp)
        shutil.copytree(ROOT / "logs", home / "logs")
        runner.invoke(cli, ["--home", ".", "rebuild", "--from-logs"], catch_exceptions=False)
        dream_id = ""
        for when, title, args in STEPS:
            args = [a.replace("{dream}", dream_id) for a in args]
            with freeze_time(when):
                result = runner.invoke(cli, ["--home", ".", *args], catch_exceptions=False)
            if args[:2] == ["dream", "--all"]:
                dream_id = result.stdout.split()[1]
            shown = " ".join(f'"{a}"' if " " in a else a for a in args)
            out += [f"{title} ({when[11:16]} UTC, {when[:10]}):", "", "```console",
                    f"$ kairos {shown}", result.output.rstrip(), "```", ""]
    return "\n".join(out)


def update(text: str) -> str:
    prompt = (ROOT / "kairos" / "dream" / "distill" / "prompt.md").read_text().rstrip()
    text = splice(text, "<!-- prompt:start -->", "<!-- prompt:end -->",
                  "\n```text\n" + prompt + "\n```\n")
    return splice(text, START, END, render())


if __name__ == "__main__":
    run(DOC, update, "dream_demo.py")

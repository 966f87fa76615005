"""Cron-friendly output: every ``--json`` prints one compact JSON document on
one line of standard output, nothing else, so ``>> x.jsonl`` stays valid JSON
Lines; hints name the home when it is not the current directory.

Every command runs in process (click keeps standard output and error
apart); the error and hint cases run as cron runs them, in a real process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from kairos.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent


def kairos(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "KAIROS_DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "kairos.cli", "--home", str(home), *args],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=120)


def one_json_line(out: subprocess.CompletedProcess[str] | Result) -> object:
    assert out.stdout.endswith("\n") and out.stdout.count("\n") == 1, \
        f"not one line: {out.stdout[:300]!r} (stderr {out.stderr[:300]!r})"
    return json.loads(out.stdout)


def json_commands() -> set[str]:
    """Every command path that takes --json, walked from the group itself."""
    found: set[str] = set()

    def walk(group: click.Group, prefix: list[str], ctx: click.Context) -> None:
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            assert cmd is not None
            path = [*prefix, name]
            if any("--json" in p.opts for p in cmd.params if isinstance(p, click.Option)):
                found.add(" ".join(path))
            if isinstance(cmd, click.Group):
                walk(cmd, path, click.Context(cmd, parent=ctx, info_name=name))

    walk(cli, [], click.Context(cli, info_name="kairos"))
    return found


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample home, restored from its logs (one pair passes the dream's gate)."""
    home = tmp_path_factory.mktemp("sample") / "home"
    home.mkdir()
    shutil.copytree(ROOT / "logs", home / "logs")
    return home


def test_every_json_command_prints_exactly_one_json_line(sample: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, object] = {}

    runner = CliRunner()

    def run(name: str, *args: str, code: int = 0, home: Path = sample) -> object:
        out = runner.invoke(cli, ["--home", str(home), *args], catch_exceptions=False)
        assert out.exit_code == code, f"{args}: {out.stderr}"
        seen[name] = one_json_line(out)
        return seen[name]

    run("rebuild", "rebuild", "--from-logs", "--json")
    run("init", "init", "--json")
    w = run("write", "write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "Sam likes jazz", "--json")
    assert isinstance(w, dict)
    run("read", "read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--json")
    run("retract", "retract", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", w["event_id"],
        "--reason", "typo", "--json")
    run("session end", "session", "end", "-a", "ada", "-u", "sam", "-s", "s-json", "--json")
    entries = run("history", "history", "-a", "ada", "-u", "sam", "--json")
    assert isinstance(entries, list)
    run("log", "log", entries[-1]["recorded_at"][:10], "--json")
    run("files", "files", "--json")
    found = run("search", "search", "-a", "ada", "-u", "sam", "tea", "--json")
    assert isinstance(found, dict) and found["results"], found
    run("verify", "verify", "--json")
    run("rebuild", "rebuild", "--json")
    run("seal", "seal", "--json")
    run("context", "context", "-a", "ada", "-u", "sam", "--json")
    run("tools", "tools", "--json")
    issued = run("keys create", "keys", "create", "--role", "auditor", "--by", "ops", "--json")
    assert isinstance(issued, dict) and issued["key"].startswith("kk_"), issued
    listed = run("keys list", "keys", "list", "--json")
    assert isinstance(listed, list) and "digest" not in listed[0], listed
    summary = run("dream", "dream", "--all", "--json")
    assert isinstance(summary, dict) and summary["proposed"], summary
    dream_id = summary["proposed"][0]["dream_id"]
    run("dream list", "dream", "list", "--json")
    run("dream show", "dream", "show", dream_id, "--json")
    run("dream approve", "dream", "approve", dream_id, "--reviewer", "alice", "--json")
    run("versions", "versions", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--json")
    run("diff", "diff", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "0", "1", "--json")
    run("trace", "trace", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--json")
    run("rollback", "rollback", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--to", "0",
        "--reason", "test", "--json")
    for _ in range(2):  # a duplicate: the rules distiller merges it
        run("write", "write", "-a", "ada", "-u", "kim", "-f", "MEMORY.md", "Kim plays chess",
            "--json")
    again = run("dream", "dream", "-a", "ada", "-u", "kim", "--force", "--json")
    assert isinstance(again, dict) and again["proposed"], again
    run("dream reject", "dream", "reject", again["proposed"][0]["dream_id"], "--reviewer", "alice",
        "--reason", "no", "--json")
    run("stats", "stats", "--json")
    run("audit context", "audit", "context", "-a", "ada", "-u", "sam", "--as-of",
        "2026-11-01T00:00:00Z", "--json")
    run("seal", "seal", "--json")
    run("export", "export", "-a", "ada", "-u", "sam", str(tmp_path / "bundle"), "--json")
    run("verify", "verify", "--bundle", str(tmp_path / "bundle"), "--json")
    # An erasure needs a home that encrypts.
    encrypted = tmp_path / "encrypted"
    monkeypatch.setenv("KAIROS_MASTER_KEY", "11" * 32)
    run("init", "init", "--json", home=encrypted)
    with open(encrypted / "kairos.toml", "a", encoding="utf-8") as f:
        f.write("\n[privacy]\nencrypt = true\n")
    run("write", "write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "Sam likes jazz",
        "--json", home=encrypted)
    for dry in (["--dry-run"], []):
        run("forget", "forget", "-u", "sam", "--reason", "r", "--by", "dpo", *dry, "--json",
            home=encrypted)
    # A failed check is still one document (exit 1), its problems inside it.
    with open(sample / "memory" / "ada" / "SOUL.md", "a", encoding="utf-8") as f:
        f.write("forged\n")
    bad = run("verify", "verify", "--json", code=1)
    assert isinstance(bad, dict) and bad["ok"] is False
    assert json_commands() <= set(seen), f"not run: {sorted(json_commands() - set(seen))}"


def test_an_error_under_json_leaves_standard_output_empty(tmp_path: Path) -> None:
    """The error is one line on standard error; the .jsonl file gains nothing."""
    out = kairos(tmp_path / "nowhere", "verify", "--json")
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("Error: ")


def test_hints_name_the_home_when_it_is_not_the_current_directory(tmp_path: Path) -> None:
    home = tmp_path / "nowhere"
    out = kairos(home, "read", "-a", "ada", "-f", "SOUL.md")
    assert f"`kairos --home {home} init`" in out.stderr
    home.mkdir()
    out = kairos(home, "read", "-a", "ada", "-f", "SOUL.md", cwd=home)
    assert "`kairos init`" in out.stderr

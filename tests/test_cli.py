"""The command line: thin commands, one-line errors, exit codes, nothing written on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Kairos, home_state


def test_write_prints_event_id_and_position_and_read_prints_the_file(kairos: Kairos) -> None:
    out = kairos("write", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md", "Sam prefers tea")
    assert out.exit_code == 0
    event_id, position = out.output.split()
    assert len(event_id) == 36 and int(position) >= 1
    out = kairos("read", "--agent", "ada", "--user", "sam", "--file", "MEMORY.md")
    assert (out.exit_code, out.output) == (0, "Sam prefers tea\n")


def test_text_dash_reads_stdin_dropping_one_newline(kairos: Kairos, home: Path) -> None:
    assert kairos("write", "-a", "ada", "-f", "SOUL.md", "--replace", "-",
                  input="I am Ada.\nI help.\n").exit_code == 0
    assert (home / "memory/ada/SOUL.md").read_text() == "I am Ada.\nI help.\n"


def test_reading_an_absent_file_says_so_and_succeeds(kairos: Kairos) -> None:
    out = kairos("read", "-a", "ada", "-u", "sam", "-f", "USER.md")
    assert out.exit_code == 0 and out.stdout == ""
    assert "does not exist" in out.stderr
    data = json.loads(kairos("read", "-a", "ada", "-u", "sam", "-f", "USER.md", "--json").stdout)
    assert data["exists"] is False and data["content"] is None


def test_soft_limit_warns_compress(kairos: Kairos) -> None:
    out = kairos("write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "m" * 5001)
    assert out.exit_code == 0 and "compress" in out.stderr


def test_json_on_every_data_command(kairos: Kairos) -> None:
    w = json.loads(kairos("write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "x", "--json").stdout)
    assert w["type"] == "MemoryWritten" and w["file"] == "MEMORY.md"
    r = json.loads(kairos("retract", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", w["event_id"],
                          "--reason", "typo", "--json").stdout)
    assert r["type"] == "MemoryRetracted"
    s = json.loads(kairos("session", "end", "-a", "ada", "-u", "sam", "-s", "s1", "--json").stdout)
    assert s["type"] == "SessionEnded"
    h = json.loads(kairos("history", "-a", "ada", "-u", "sam", "--json").stdout)
    assert [row["type"] for row in h] == ["StreamOpened", "MemoryWritten", "MemoryRetracted",
                                          "SessionEnded"]
    v = json.loads(kairos("verify", "--json").stdout)
    assert v["ok"] is True and v["events"] == 4
    b = json.loads(kairos("rebuild", "--json").stdout)
    assert b["events"] == 4 and b["changed"] == []
    f = json.loads(kairos("files", "--json").stdout)
    assert f == []  # the only write was retracted


def test_log_prints_the_day(kairos: Kairos) -> None:
    kairos("write", "-a", "ada", "-f", "SOUL.md", "I am Ada.")
    from kairos import clock

    out = kairos("log", clock.now().date().isoformat())
    assert out.exit_code == 0 and "## 000002 MemoryWritten" in out.output
    entries = json.loads(kairos("log", clock.now().date().isoformat(), "--json").stdout)
    assert [(e["position"], e["type"], e.get("text")) for e in entries] == [
        (1, "StreamOpened", None), (2, "MemoryWritten", "I am Ada.")]
    assert entries[1]["log_line"] == out.output.split("\n").index("## 000002 MemoryWritten") + 1
    assert kairos("log", "1999-01-01").exit_code == 2  # not found: bad input


BAD_INPUTS = [
    (["write", "-a", "ada", "-f", "NOTES.md", "x"], "unknown file"),
    (["write", "-a", "ada", "-u", "sam", "-f", "SOUL.md", "x"], "belongs to the agent"),
    (["write", "-a", "ada", "-f", "MEMORY.md", "x"], "give a user"),
    (["write", "-a", "../etc", "-f", "SOUL.md", "x"], "invalid agent id"),
    (["write", "-a", "ada", "-u", "a/b", "-f", "USER.md", "x"], "invalid user id"),
    (["write", "-a", "ada", "-u", "a\\b", "-f", "USER.md", "x"], "invalid user id"),
    (["write", "-a", "a..b", "-f", "SOUL.md", "x"], "invalid agent id"),
    (["write", "-a", ".hidden", "-f", "SOUL.md", "x"], "invalid agent id"),
    (["write", "-a", "x" * 129, "-f", "SOUL.md", "x"], "invalid agent id"),
    (["write", "-a", "ada", "-f", "SOUL.md", "-s", "bad session", "x"], "invalid session id"),
    (["write", "-a", "ada", "-f", "SOUL.md", "s" * 2001], "hard limit of 2000"),
    (["write", "-a", "ada", "-f", "SOUL.md", ""], "text is empty"),
    (["write", "-a", "ada", "-f", "SOUL.md", "   \n "], "text is empty"),
    (["write", "-a", "ada", "-f", "SOUL.md", "bad\udcffbyte"], "not valid UTF-8"),
    (["read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--as-of", "last tuesday"],
     "unparsable date"),
    (["read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--stream-version", "0"], "positive"),
    (["read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--version", "-1"], "non-negative"),
    (["log", "2026-13-45"], "unparsable date"),
    (["retract", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "nope", "--reason", "x"], "no event"),
    (["history", "-a", "ada", "-f", "MEMORY.md"], "give a user"),
    (["session", "end", "-a", "ada", "-u", "../sam"], "invalid user id"),
]


@pytest.mark.parametrize("args,message", BAD_INPUTS, ids=[m for _, m in BAD_INPUTS])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(
        kairos: Kairos, home: Path, db_url: str, args: list[str], message: str) -> None:
    kairos("write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "existing fact")
    before = home_state(home, db_url)
    out = kairos(*args)
    assert out.exit_code == 2, out.output
    assert message in out.stderr
    assert out.stderr.startswith("Error: ") and out.stderr.count("\n") == 1
    assert home_state(home, db_url) == before


def test_invalid_utf8_on_stdin_is_refused(kairos: Kairos, home: Path, db_url: str) -> None:
    kairos("write", "-a", "ada", "-f", "SOUL.md", "I am Ada.")
    before = home_state(home, db_url)
    out = kairos("write", "-a", "ada", "-f", "ABOUT.md", "-", input=b"caf\xe9\n")
    assert out.exit_code == 2 and "not valid UTF-8" in out.stderr
    out = kairos("write", "-a", "ada", "-f", "ABOUT.md", "-", input=b"a\x00b")
    assert out.exit_code == 2 and "NUL" in out.stderr
    assert home_state(home, db_url) == before


def test_a_directory_that_is_not_a_home_exits_2(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kairos.cli.main import cli

    out = CliRunner().invoke(cli, ["--home", str(tmp_path), "read", "-a", "ada", "-f", "SOUL.md"])
    assert out.exit_code == 2 and "not a Kairos home" in out.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_database_is_a_clear_error(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from kairos.cli.main import cli

    (tmp_path / "logs").mkdir()
    out = CliRunner().invoke(cli, ["--home", str(tmp_path), "--db",
                                   "postgresql://nobody@127.0.0.1:9/none", "files"])
    assert out.exit_code == 1
    assert out.stderr.startswith("Error: cannot reach the event store")
    assert "Traceback" not in out.output


def test_the_installed_command_runs_as_a_subprocess(home: Path, db_url: str) -> None:
    env = {**os.environ, "KAIROS_HOME": str(home), "KAIROS_DATABASE_URL": db_url}
    kairos_bin = Path(sys.executable).parent / "kairos"
    subprocess.run([kairos_bin, "init"], env=env, check=True, capture_output=True)
    done = subprocess.run([kairos_bin, "write", "-a", "ada", "-f", "SOUL.md", "I am Ada."],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    bad = subprocess.run([kairos_bin, "write", "-a", "ada", "-f", "NOPE.md", "x"], env=env,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.strip().startswith("Error: unknown file")
    read = subprocess.run([kairos_bin, "read", "-a", "ada", "-f", "SOUL.md"], env=env,
                          capture_output=True, text=True)
    assert read.stdout == "I am Ada.\n"


# -- one exit-code rule: 2 bad input or usage, 1 a check or an operation failed -------
EXIT_CODES = [
    (["dream", "show", "00000000-0000-0000-0000-000000000000"], 2, "no dream"),
    (["dream", "approve", "00000000-0000-0000-0000-000000000000", "--reviewer", "al"], 2,
     "no dream"),
    (["log", "1999-01-01"], 2, "no log for 1999-01-01"),
    (["rollback", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--to", "7", "--reason", "x"],
     2, "no version 7"),
    (["read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--version", "3"], 2,
     "no version 3"),
    (["read", "--no-such-option"], 2, "No such option"),
    (["export", "-a", "ada", "-u", "sam", "bundle"], 2, "no checkpoint yet"),
]


@pytest.mark.parametrize("args,code,message", EXIT_CODES, ids=[m for *_, m in EXIT_CODES])
def test_one_exit_code_rule_for_every_command(kairos: Kairos, args: list[str], code: int,
                                              message: str) -> None:
    kairos("write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "existing fact")
    out = kairos(*args)
    assert (out.exit_code, message in out.stderr) == (code, True), out.output


def test_a_failed_check_exits_1(kairos: Kairos, home: Path) -> None:
    kairos("write", "-a", "ada", "-f", "SOUL.md", "I am Ada.")
    day = next((home / "logs").rglob("*.md"))
    day.write_text(day.read_text().replace("I am Ada.", "I am Eve."))
    out = kairos("verify")
    assert out.exit_code == 1 and out.output.startswith("FAILED: ")


CLI = Path(__file__).resolve().parent.parent / "cli"


def test_shared_options_are_declared_once() -> None:
    """--agent, --user, --file and --json come from cli/options.py alone."""
    for path in CLI.glob("*.py"):
        if path.name == "options.py":
            continue
        text = path.read_text()
        for option in ('"--agent"', '"--user"', '"--file"', '"--json"', '"--home"'):
            assert option not in text, f"{path.name} declares {option} itself"


def test_every_command_body_is_short() -> None:
    """Parse, call, show: about 20 lines, the rendering in cli/render.py."""
    import inspect

    import click

    from kairos.cli.main import cli

    def commands(group: click.Group) -> list[click.Command]:
        found: list[click.Command] = [group]
        for name in group.list_commands(click.Context(group)):
            cmd = group.get_command(click.Context(group), name)
            assert cmd is not None
            found.extend(commands(cmd) if isinstance(cmd, click.Group) else [cmd])
        return found

    for cmd in commands(cli):
        fn = inspect.unwrap(cmd.callback)  # type: ignore[arg-type]
        lines = inspect.getsource(fn).split('"""')[-1].strip().splitlines()
        assert len(lines) <= 20, f"kairos {cmd.name}: {len(lines)} lines"

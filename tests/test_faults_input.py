"""Hostile input: refused cleanly (BadInput, exit 2, the numbers said),
nothing written — or, where it is data, kept exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from kairos.agent.tools import ToolExecutor
from kairos.errors import BadInput
from kairos.memory import Memory
from tests.conftest import Kairos, home_state, store_rows


def test_a_soft_limited_file_accepts_writes_up_to_its_ceiling(mem: Memory) -> None:
    mem.write("ada", "MEMORY.md", "x" * 19_999, user="sam")  # 4 x 5000, less one newline
    with pytest.raises(BadInput, match="would be 20001 chars, over its ceiling of 20000"):
        mem.write("ada", "MEMORY.md", "y", user="sam")
    # replace is how it comes back under
    assert mem.write("ada", "MEMORY.md", "short", user="sam", mode="replace").size == 5


def test_one_write_is_bounded(mem: Memory) -> None:
    before = store_rows(mem)
    with pytest.raises(BadInput, match="70000 bytes, over the 65536-byte bound"):
        mem.write("ada", "MEMORY.md", "é" * 35_000, user="sam")  # 35 000 chars, 70 000 bytes
    with pytest.raises(BadInput, match="over the 65536-byte bound"):
        mem.write("ada", "MEMORY.md", b"z" * 65_537, user="sam")
    with pytest.raises(BadInput, match="over the 65536-byte bound"):
        mem.retract("ada", "MEMORY.md", ["x"], user="sam", reason="r" * 70_000)
    assert store_rows(mem) == before


def test_ceilings_are_configurable(home: Path, db_url: str) -> None:
    Memory.init(str(home), db_url).close()
    (home / "kairos.toml").write_text('[limits]\nmax_write = 100\nceiling_factor = 2\n'
                                      '"MEMORY.md" = 50\n')
    with Memory(str(home), db_url) as m:
        with pytest.raises(BadInput, match="over the 100-byte bound"):
            m.write("ada", "MEMORY.md", "x" * 101, user="sam")
        m.write("ada", "MEMORY.md", "x" * 99, user="sam")
        with pytest.raises(BadInput, match="over its ceiling of 100"):
            m.write("ada", "MEMORY.md", "y", user="sam")
    for bad in ("max_write = 0", "ceiling_factor = -1", 'max_write = "big"'):
        (home / "kairos.toml").write_text(f"[limits]\n{bad}\n")
        with pytest.raises(BadInput, match="must be a positive integer"):
            Memory(str(home), db_url)


HOSTILE_CLI = [
    (["write", "-a", "../etc", "-f", "SOUL.md", "x"], "invalid agent id"),
    (["write", "-a", "ada/../../x", "-f", "SOUL.md", "x"], "invalid agent id"),
    (["write", "-a", "a" * 129, "-f", "SOUL.md", "x"], "invalid agent id"),
    (["write", "-a", "ädä", "-f", "SOUL.md", "x"], "invalid agent id"),
    (["write", "-a", "ada", "-u", "sam\n", "-f", "MEMORY.md", "x"], "invalid user id"),
    (["write", "-a", "ada", "-f", "../../SOUL.md", "x"], "unknown file"),
    (["write", "-a", "ada", "-u", "sam", "-f", "topics/../../x.md", "x"], "unknown file"),
    (["write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "a\x00b"], "NUL"),
    (["write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", " \n\t "], "empty"),
    (["write", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--idempotency-key", "a b", "x"],
     "idempotency key"),
    (["write", "-a", "ada", "-f", "SOUL.md", "-s", "s/../1", "x"], "invalid session id"),
    (["read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--as-of", "yesterday"],
     "unparsable date"),
    (["read", "-a", "ada", "-u", "sam", "-f", "MEMORY.md", "--version", "-1"],
     "non-negative"),
    (["log", "2026-02-30"], "unparsable date"),
    (["log", "../../../etc/passwd"], "unparsable date"),
    (["rebuild", "--import-past-end"], "goes with --from-logs"),
]


@pytest.mark.parametrize(("args", "says"), HOSTILE_CLI)
def test_hostile_command_lines_are_refused_with_one_line(
        kairos: Kairos, home: Path, db_url: str, args: list[str], says: str) -> None:
    before = home_state(home, db_url)
    out = kairos(*args)
    assert out.exit_code == 2, out.output
    assert says in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert home_state(home, db_url) == before


def test_control_characters_and_odd_unicode_are_kept_exactly(mem: Memory, home: Path) -> None:
    text = "line\rfeed\x1b[31m red\u2028sep\ttab \\ back\n## 000001 Fake\n- hash: 00\n\ufeff🙂"
    mem.write("ada", "MEMORY.md", text, user="sam")
    assert mem.read("ada", "MEMORY.md", user="sam").content == text + "\n"
    assert mem.verify().ok
    mem.rebuild()
    assert mem.read("ada", "MEMORY.md", user="sam").content == text + "\n"


HOSTILE_TOOL_ARGS = [
    ('{"file": "MEMORY.md", "text": "x", "text2": "y"}', "unexpected argument"),
    ('{"file": ["MEMORY.md"], "text": "x"}', "must be a string"),
    ('{"file": "MEMORY.md", "text": null}', "must be a string"),
    ('{"file": "MEMORY.md", "text": true}', "must be a string"),
    ('{"file": "MEMORY.md"}', "missing argument 'text'"),
    ('"MEMORY.md"', "JSON object"),
    ('{"file": "MEMORY.md", "text": "x"' + "}" * 3, "not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "not valid JSON"),
    ('{"file": "MEMORY.md", "text": "' + "x" * 70_000 + '"}', "65536-byte bound"),
    ('{"file": "MEMORY.md\\u0000", "text": "x"}', "unknown file"),
]


@pytest.mark.parametrize(("arguments", "says"), HOSTILE_TOOL_ARGS)
def test_hostile_tool_arguments_come_back_as_tool_errors(
        mem: Memory, arguments: str, says: str) -> None:
    before = store_rows(mem)
    result = ToolExecutor(mem, "ada", "sam").run("memory_write", arguments)
    assert says in result["error"]
    assert store_rows(mem) == before


def test_a_hostile_tool_call_id_is_refused_not_written(mem: Memory) -> None:
    result = ToolExecutor(mem, "ada", "sam").run(
        "memory_write", {"file": "MEMORY.md", "text": "x"}, call_id="id with spaces")
    assert "idempotency key" in result["error"]

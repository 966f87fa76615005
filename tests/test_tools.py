"""The memory tools' executor: ordinary events for the scope, errors for everything else."""

from __future__ import annotations

import json

import pytest

from kairos.agent.tools import ToolExecutor
from kairos.memory import Memory
from tests.conftest import store_rows


@pytest.fixture
def ada_sam(mem: Memory) -> ToolExecutor:
    mem.write("ada", "MEMORY.md", "Kim's secret recipe.", user="kim")
    return ToolExecutor(mem, "ada", "sam", session="s-9")


def test_write_read_search_retract_through_the_tools(mem: Memory, ada_sam: ToolExecutor) -> None:
    saved = ada_sam.run("memory_write", {"file": "MEMORY.md", "text": "Sam adopted a cat."})
    assert saved["saved"] and saved["file"] == "MEMORY.md"
    row = mem.event(saved["event_id"])
    assert (row["actor"], row["session_id"], row["user_id"]) == ("agent", "s-9", "sam")
    assert ada_sam.run("memory_read", {"file": "MEMORY.md"})["content"] == "Sam adopted a cat.\n"
    found = ada_sam.run("memory_search", {"query": "CAT"})["results"]
    assert found[0]["event_ids"] == [saved["event_id"]] and found[0]["where"] == "current"
    assert not any("Kim" in h["text"] for h in
                   ada_sam.run("memory_search", {"query": "recipe"})["results"])
    gone = ada_sam.run_json("memory_retract", json.dumps(
        {"file": "MEMORY.md", "event_ids": [saved["event_id"]], "reason": "it was a dog"}))
    assert "error" not in json.loads(gone)
    after = ada_sam.run("memory_search", {"query": "cat"})["results"]
    assert not any("cat" in h["text"] for h in after)  # retracted: never handed to the model
    assert all("retracted" not in h for h in after)
    note = ada_sam.run("memory_read", {"file": "USER.md"})
    assert note["exists"] is False and "empty" in note["note"]


def test_a_memory_over_its_limit_tells_the_model_to_compress(ada_sam: ToolExecutor) -> None:
    ada_sam.run("memory_write", {"file": "MEMORY.md", "text": "x" * 5100})
    assert "compress it" in ada_sam.run("memory_read", {"file": "MEMORY.md"})["note"]


HOSTILE = [
    ("memory_read", {"file": "../kim/MEMORY.md"}, "unknown file"),
    ("memory_read", {"file": "/etc/passwd"}, "unknown file"),
    ("memory_read", {"file": "memory/ada/users/kim/MEMORY.md"}, "unknown file"),
    ("memory_read", {"file": "MEMORY.md", "user": "kim"}, "unexpected argument 'user'"),
    ("memory_write", {"file": "MEMORY.md", "text": "x", "agent": "bob"},
     "unexpected argument 'agent'"),
    ("memory_write", {"file": "NOTES.md", "text": "x"}, "unknown file"),
    ("memory_write", {"file": "MEMORY.md", "text": 42}, "must be a string"),
    ("memory_search", {"query": "tea", "limit": "5"}, "argument 'limit' must be an integer"),
    ("memory_write", {"file": "MEMORY.md", "text": "x", "mode": "delete"}, "must be one of"),
    ("memory_write", {"file": "USER.md", "text": "u" * 2100}, "hard limit"),
    ("memory_retract", {"file": "MEMORY.md", "event_ids": ["nope"], "reason": "x"}, "no event"),
    ("memory_delete", {"file": "MEMORY.md"}, "unknown tool"),
    ("memory_read", "{not json", "not valid JSON"),
    ("memory_read", [], "JSON object"),
]


@pytest.mark.parametrize("name,arguments,message", HOSTILE, ids=[m for _, _, m in HOSTILE])
def test_hostile_calls_are_refused_and_write_nothing(mem: Memory, ada_sam: ToolExecutor,
                                                    name: str, arguments: object,
                                                    message: str) -> None:
    before = store_rows(mem)
    result = ada_sam.run(name, arguments)
    assert message in result["error"]
    assert store_rows(mem) == before


def test_another_pairs_event_cannot_be_retracted(mem: Memory, ada_sam: ToolExecutor) -> None:
    kims = mem.history("ada", user="kim")[-1]["event_id"]
    result = ada_sam.run("memory_retract", {"file": "MEMORY.md", "event_ids": [kims],
                                            "reason": "x"})
    assert "no event" in result["error"]
    assert mem.read("ada", "MEMORY.md", user="kim").content == "Kim's secret recipe.\n"


def test_an_agent_only_session_cannot_touch_user_files(mem: Memory) -> None:
    agent_only = ToolExecutor(mem, "ada")
    assert "has none" in agent_only.run("memory_read", {"file": "MEMORY.md"})["error"]
    assert agent_only.run("memory_write", {"file": "TOOLS.md", "text": "note"})["saved"]

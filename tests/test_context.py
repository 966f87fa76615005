"""Context assembly: the four strategies, the tools section, the hint, token counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kairos.agent import STRATEGIES
from kairos.agent.context import assemble, compare
from kairos.agent.tools import MEMORY_TOOLS
from kairos.memory import Memory
from tests.conftest import Kairos, store_rows

HINT = "You have memory tools. Load USER.md (user profile) and MEMORY.md (long-term memory) when needed."


def fill(mem: Memory) -> None:
    mem.write("ada", "SOUL.md", "I am Ada.")
    mem.write("ada", "ABOUT.md", "Ada helps the Lind family.")
    mem.write("ada", "TOOLS.md", "calendar: confirm the time zone.")
    mem.write("ada", "USER.md", "Name: Sam.", user="sam")
    mem.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")


def titles(ctx) -> list[str]:  # type: ignore[no-untyped-def]
    return [s.title for s in ctx.sections]


@pytest.mark.parametrize("strategy,expected", [
    ("full", ["Agent Identity", "Agent Profile", "Tools", "User Profile", "Long-term Memory",
              "Memory"]),
    ("on-demand", ["Tools", "Memory"]),
    ("hybrid-v1", ["Agent Identity", "Agent Profile", "Tools", "User Profile", "Memory"]),
    ("hybrid-v2", ["Agent Identity", "Agent Profile", "Tools", "Memory"]),
])
def test_each_strategy_injects_its_files(mem: Memory, strategy: str, expected: list[str]) -> None:
    fill(mem)
    ctx = assemble(mem, "ada", "sam", strategy=strategy)
    assert titles(ctx) == expected
    assert ("Sam likes tea." in ctx.prompt) == (strategy == "full")
    assert ("Name: Sam." in ctx.prompt) == (strategy in ("full", "hybrid-v1"))
    assert ("calendar: confirm" in ctx.prompt) == (strategy != "on-demand")


def test_hybrid_v2_is_the_default_with_the_design_hint(mem: Memory) -> None:
    fill(mem)
    ctx = assemble(mem, "ada", "sam")
    assert ctx.strategy == "hybrid-v2"
    assert ctx.prompt.startswith("## Agent Identity\n\nI am Ada.\n\n## Agent Profile\n\n")
    assert ctx.prompt.endswith(f"## Memory\n\n{HINT}\n")
    assert ctx.on_demand == ["USER.md", "MEMORY.md"]


def test_the_tools_section_lists_every_tool_then_the_tool_notes(mem: Memory) -> None:
    fill(mem)
    own = {"type": "function", "function": {"name": "weather", "description": "The forecast.",
           "parameters": {"type": "object", "properties": {
               "city": {"type": "string", "description": "Where."}}, "required": ["city"]}}}
    tools = next(s.text for s in assemble(mem, "ada", "sam", extra_tools=[own]).sections
                 if s.title == "Tools")
    names = [line[4:] for line in tools.splitlines() if line.startswith("### ")]
    assert names == ["memory_read", "memory_write", "memory_search", "memory_retract", "weather"]
    assert "- city (string, required): Where." in tools
    assert "- mode (string, optional): append (default)" in tools
    assert tools.endswith("\n\n---\n\n## Tool Notes\n\ncalendar: confirm the time zone.")


def test_the_generated_part_is_never_stored(mem: Memory, home: Path) -> None:
    fill(mem)
    before = store_rows(mem)
    for strategy in STRATEGIES:
        assemble(mem, "ada", "sam", strategy=strategy)
    assert store_rows(mem) == before
    mem.flush()
    assert (home / "memory/ada/TOOLS.md").read_text() == "calendar: confirm the time zone.\n"


def test_a_new_agent_gets_a_valid_minimal_prompt(mem: Memory) -> None:
    ctx = assemble(mem, "newbie", "someone")
    assert titles(ctx) == ["Tools", "Memory"]
    assert ctx.prompt.endswith(f"{HINT}\n") and "### memory_read" in ctx.prompt
    assert assemble(mem, "newbie").prompt.endswith(f"{HINT}\n")  # no user at all


def test_a_memory_over_its_limit_is_flagged_for_compression(mem: Memory) -> None:
    mem.write("ada", "MEMORY.md", "m" * 5100, user="sam")
    ctx = assemble(mem, "ada", "sam", strategy="full")
    assert "over its limit of 5000: compress it" in ctx.prompt


def test_token_counts_per_section_add_up(mem: Memory) -> None:
    fill(mem)
    ctx = assemble(mem, "ada", "sam")
    assert ctx.tokenizer and all(s.tokens > 0 for s in ctx.sections)
    assert abs(sum(s.tokens for s in ctx.sections) - ctx.total_tokens) <= 2 * len(ctx.sections)
    rows = {r["strategy"]: r for r in compare(mem, "ada", "sam")}
    assert rows["full"]["injected_tokens"] > rows["hybrid-v1"]["injected_tokens"] \
        > rows["hybrid-v2"]["injected_tokens"] > rows["on-demand"]["injected_tokens"]
    assert rows["full"]["on_demand_tokens"] == 0 < rows["hybrid-v2"]["on_demand_tokens"]


def test_the_cli_prints_the_prompt_the_table_and_the_comparison(kairos: Kairos, mem: Memory,
                                                               tmp_path: Path) -> None:
    fill(mem)
    out = kairos("context", "--agent", "ada", "--user", "sam")
    assert out.exit_code == 0 and out.stdout.endswith(f"{HINT}\n")
    assert "total" in out.stderr and "on demand: MEMORY.md" in out.stderr
    data = json.loads(kairos("context", "-a", "ada", "-u", "sam", "--strategy", "full",
                             "--json").stdout)
    assert data["strategy"] == "full" and data["total_tokens"] > 0
    compared = json.loads(kairos("context", "-a", "ada", "-u", "sam", "--compare",
                                 "--json").stdout)
    assert [r["strategy"] for r in compared] == list(STRATEGIES)
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": [{"type": "function", "function": {
        "name": "weather", "description": "The forecast.", "parameters": {"type": "object",
                                                                           "properties": {}}}}]}))
    assert "### weather" in kairos("context", "-a", "ada", "--tools", str(tools)).stdout
    tools.write_text("[{\"name\": 1}]")
    bad = kairos("context", "-a", "ada", "--tools", str(tools))
    assert bad.exit_code == 2 and "each tool must be" in bad.stderr
    listed = json.loads(kairos("tools", "--json").stdout)
    assert listed == MEMORY_TOOLS

"""The MCP server, driven by the official mcp SDK client over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kairos.memory import Memory


async def session_calls(home: Path, db_url: str) -> dict[str, object]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kairos.cli", "--home", str(home), "--db", db_url, "mcp", "--agent", "ada",
              "--user", "sam", "--session", "mcp-1"],
        env={"PATH": os.environ.get("PATH", "")})
    out: dict[str, object] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        out["tools"] = [t.name for t in (await session.list_tools()).tools]
        out["write"] = await session.call_tool(
            "memory_write", {"file": "MEMORY.md", "text": "Sam plays the oboe."})
        out["read"] = await session.call_tool("memory_read", {"file": "MEMORY.md"})
        out["search"] = await session.call_tool("memory_search", {"query": "oboe"})
        out["hostile"] = await session.call_tool(
            "memory_read", {"file": "MEMORY.md", "user": "kim"})
        out["path"] = await session.call_tool("memory_read", {"file": "../kim/MEMORY.md"})
    return out


def payload(result: object) -> dict[str, object]:
    return json.loads(result.content[0].text)  # type: ignore[attr-defined]


def test_an_mcp_client_lists_writes_reads_searches_and_is_refused_out_of_scope(
        mem: Memory, home: Path, db_url: str) -> None:
    mem.write("ada", "MEMORY.md", "Kim's secret recipe.", user="kim")
    mem.close()
    out = anyio.run(session_calls, home, db_url)
    assert out["tools"] == ["memory_read", "memory_write", "memory_search", "memory_retract"]
    assert out["write"].is_error is False  # type: ignore[attr-defined]
    assert payload(out["read"])["content"] == "Sam plays the oboe.\n"
    hits = payload(out["search"])["results"]
    assert hits[0]["text"] == "Sam plays the oboe."
    for refused in ("hostile", "path"):
        assert out[refused].is_error is True  # type: ignore[attr-defined]
        assert "Kim" not in out[refused].content[0].text  # type: ignore[attr-defined]
    with Memory(str(home), db_url) as m:
        row = m.history("ada", user="sam")[-1]
        assert (row["text"], row["actor"], row["session_id"]) == ("Sam plays the oboe.", "agent",
                                                                  "mcp-1")
        assert m.read("ada", "MEMORY.md", user="kim").content == "Kim's secret recipe.\n"
        assert m.verify().ok

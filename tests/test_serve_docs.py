"""docs/serve.md and the HTTP agent loop cannot drift from ``kairos serve``.

The endpoint table in the guide is checked against the table that routes
the requests (:data:`kairos.http.api.ENDPOINTS`), the error codes against
the ones the application answers with, and docs/examples/agent_loop_http.py
is run as a user would run it, against a real server on a loopback port, on
both backends.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from kairos.client import Client
from kairos.http.api import ENDPOINTS
from kairos.memory import Memory
from tests.llm_server import LLMServer, completion
from tests.test_agent_loop import tool_call
from tests.test_serve import start, stop

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs/serve.md"
EXAMPLE = ROOT / "docs/examples/agent_loop_http.py"


def section(title: str) -> str:
    text = GUIDE.read_text(encoding="utf-8")
    start_at = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start_at + 1)
    return text[start_at:end if end != -1 else len(text)]


def table_rows(text: str) -> list[list[str]]:
    """The cells of a markdown table's body rows, backticks dropped."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip().strip("`") for cell in row.strip("|").split("|")] for row in rows[2:]]


# -- the guide ------------------------------------------------------------------------------
def test_the_endpoint_table_is_the_routed_table() -> None:
    rows = table_rows(section("Endpoints"))
    listed = [(method, path) for method, path, *_ in rows]
    routed = [(ep.method, ep.path) for ep in ENDPOINTS]
    assert len(listed) == len(set(listed)), "an endpoint is listed twice"
    assert set(listed) == set(routed), (
        f"docs/serve.md lists {sorted(set(listed) - set(routed))} that are not routed and "
        f"misses {sorted(set(routed) - set(listed))}: update its endpoint table")
    roles = {(method, path): {r.strip() for r in cell.split(",")}
             for method, path, cell, *_ in rows}
    for ep in ENDPOINTS:
        assert roles[ep.method, ep.path] == set(ep.roles), (ep.method, ep.path)
    table = "\n".join(line for line in section("Endpoints").splitlines() if line.startswith("|"))
    assert set(re.findall(r"/v1/[\w/{}]*", table)) <= {ep.path for ep in ENDPOINTS}


def test_every_v1_url_in_the_guide_is_routed() -> None:
    """The curl examples call paths that exist (with a real agent or dream id)."""
    patterns = [re.compile(re.sub(r"\{\w+\}", lambda _: "[^/]+", ep.path) + "$")
                for ep in ENDPOINTS]
    used = re.findall(r"/v1/[^\s\"'?`),;:]*", GUIDE.read_text(encoding="utf-8"))
    assert used
    for url in (u.rstrip(".") for u in used):
        assert any(p.match(url) for p in patterns), f"docs/serve.md names {url}: no such route"


def test_the_error_codes_are_the_ones_the_server_answers_with() -> None:
    source = "".join((ROOT / "kairos/http" / name).read_text(encoding="utf-8")
                     for name in ("app.py", "mcp.py"))
    answered = set(re.findall(r'(\d{3}), "([a-z_]+)"', source))
    documented = {(status, code) for code, status, *_ in table_rows(section("Errors"))}
    assert documented == answered, "docs/serve.md's error table differs from kairos/http/app.py"


# -- the example, against a real server -------------------------------------------------------
def test_the_http_agent_loop_writes_through_kairos_serve(home: Path, db_url: str) -> None:
    with Memory.init(str(home), db_url) as m:
        m.write("ada", "SOUL.md", "I am Ada.")
        key = m.keys.create("agent", agent="ada", user="sam", by="ops")[0]
    proc, url = start(home, db_url)
    try:
        with LLMServer() as llm:
            llm.replies += [tool_call, lambda body: (200, completion("Noted: a cat!"), 0.0)]
            run = subprocess.run(
                [sys.executable, str(EXAMPLE), "ada", "sam", "I adopted a cat!",
                 "--model", "openai/test-model", "--api-base", llm.api_base,
                 "--session", "chat-7"],
                env={**os.environ, "KAIROS_URL": url, "KAIROS_KEY": key},
                capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert run.stdout == "Noted: a cat!\n"
        first, second = llm.requests
        assert first["messages"][0]["content"].startswith("## Agent Identity\n\nI am Ada.")
        assert [t["function"]["name"] for t in first["tools"]][:2] == ["memory_read",
                                                                       "memory_write"]
        result = json.loads(second["messages"][-1]["content"])
        assert second["messages"][-1]["role"] == "tool" and result["saved"] is True
        with Client(url, key) as c:
            assert c.read("ada", "MEMORY.md", user="sam").content == "Sam adopted a cat.\n"
            # The tool call's id was the write's Idempotency-Key: run again, nothing new.
            again = c.write("ada", "MEMORY.md", "Sam adopted a cat.", user="sam",
                            idempotency_key="call_1")
            assert again.event_id == result["event_id"]
    finally:
        err = stop(proc)
    assert proc.returncode == 0, err
    logged = "".join(p.read_text() for p in (home / "logs").rglob("*.md"))
    assert logged.count("      Sam adopted a cat.\n") == 1
    assert "- actor: agent\n- session: chat-7\n" in logged


def test_the_http_agent_loop_wants_a_key() -> None:
    run = subprocess.run([sys.executable, str(EXAMPLE), "ada", "sam", "hi", "--model", "m"],
                         env={k: v for k, v in os.environ.items() if k != "KAIROS_KEY"},
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "KAIROS_KEY" in run.stderr

"""The example agent loop in docs/examples, against a loopback OpenAI-compatible server."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from kairos.memory import Memory
from tests.llm_server import LLMServer, completion

ROOT = Path(__file__).resolve().parent.parent


def load_loop() -> Any:
    spec = importlib.util.spec_from_file_location("agent_loop", ROOT / "docs/examples/agent_loop.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tool_call(body: dict[str, Any]) -> tuple[int, Any, float]:
    reply = completion("")
    reply["choices"][0]["finish_reason"] = "tool_calls"
    reply["choices"][0]["message"] = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {
            "name": "memory_write",
            "arguments": json.dumps({"file": "MEMORY.md", "text": "Sam adopted a cat."})}}]}
    return 200, reply, 0.0


def test_a_tool_call_flows_through_kairos_into_the_logs(mem: Memory, home: Path) -> None:
    mem.write("ada", "SOUL.md", "I am Ada.")
    loop = load_loop()
    with LLMServer() as server:
        server.replies += [tool_call, lambda body: (200, completion("Noted: a cat!"), 0.0)]
        answer = loop.run_turn(mem, "ada", "sam", "I adopted a cat!", model="openai/test-model",
                               api_base=server.api_base, session="chat-7")
    assert answer == "Noted: a cat!"
    first, second = server.requests
    assert first["messages"][0]["content"].startswith("## Agent Identity\n\nI am Ada.")
    assert [t["function"]["name"] for t in first["tools"]][:2] == ["memory_read", "memory_write"]
    result = json.loads(second["messages"][-1]["content"])
    assert second["messages"][-1]["role"] == "tool" and result["saved"] is True
    assert mem.read("ada", "MEMORY.md", user="sam").content == "Sam adopted a cat.\n"
    logged = "".join(p.read_text() for p in (home / "logs").rglob("*.md"))
    assert "      Sam adopted a cat.\n" in logged
    assert "- actor: agent\n- session: chat-7\n" in logged

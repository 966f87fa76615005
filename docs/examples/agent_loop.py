"""A small agent loop: Kairos context (Hybrid v2) + memory tools + litellm.

One user turn: assemble the system prompt, call the model with the memory
tools, run each tool call through Kairos (scoped to this agent and user,
recorded as the agent's writes in this session), and go on until the model
answers in words.  Tested in tests/test_agent_loop.py against a loopback
OpenAI-compatible server.

    from kairos import Memory
    with Memory("./home") as mem:
        print(run_turn(mem, "ada", "sam", "I adopted a cat!", model="openai/gpt-4o-mini"))
"""

from __future__ import annotations

import os
from typing import Any

from kairos.agent.context import assemble
from kairos.agent.tools import ToolExecutor


def run_turn(memory: Any, agent: str, user: str, message: str, *, model: str,
             api_base: str | None = None, session: str | None = None,
             max_steps: int = 5) -> str:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    context = assemble(memory, agent, user, count=False)
    executor = ToolExecutor(memory, agent, user, session)
    messages: list[dict[str, Any]] = [{"role": "system", "content": context.prompt},
                                      {"role": "user", "content": message}]
    extra = {"api_base": api_base, "api_key": "no-key"} if api_base else {}
    for _ in range(max_steps):
        response = litellm.completion(model=model, messages=messages, tools=context.tools,
                                      **extra)
        reply = response.choices[0].message
        calls = reply.tool_calls or []
        if not calls:
            return str(reply.content or "")
        messages.append({"role": "assistant", "content": reply.content,
                         "tool_calls": [c.model_dump() for c in calls]})
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": executor.run_json(call.function.name,
                                                          call.function.arguments,
                                                          call_id=call.id)})
    raise RuntimeError(f"no answer after {max_steps} tool steps")

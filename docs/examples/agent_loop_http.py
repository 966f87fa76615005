"""The agent loop of agent_loop.py, with the memory behind ``kairos serve``.

One user turn, as there: the system prompt (Hybrid v2, assembled by the
server), the model called with the memory tools, each tool call run through
Kairos (scoped to this agent and user, recorded as the agent's writes in
this session), and on until the model answers in words.  The memory is
reached over HTTP with an agent key (``kairos keys create --role agent
--agent ada --user sam --by ops``): the executor fixes the scope, and the
server refuses anything outside the key's agent and user whatever the
client sends.  Tested in tests/test_serve_docs.py against a real server and
a loopback OpenAI-compatible server.

    from kairos.client import Client
    with Client("http://127.0.0.1:8420", os.environ["KAIROS_KEY"]) as mem:
        print(run_turn(mem, "ada", "sam", "I adopted a cat!", model="openai/gpt-4o-mini"))

or from a shell, the server's URL and the key in the environment (never on
the command line, where ``ps`` shows it):

    KAIROS_URL=http://127.0.0.1:8420 KAIROS_KEY=kk_… \\
        python agent_loop_http.py ada sam "I adopted a cat!" --model openai/gpt-4o-mini
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from kairos.agent.tools import ToolExecutor
from kairos.client import Client
from kairos.ports import ReadResult, WriteResult


def run_turn(memory: Client, agent: str, user: str, message: str, *, model: str,
             api_base: str | None = None, session: str | None = None,
             max_steps: int = 5) -> str:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    context = memory.context(agent, user)  # one request: the server reads the files
    executor = ToolExecutor(Remote(memory), agent, user, session)
    messages: list[dict[str, Any]] = [{"role": "system", "content": context["prompt"]},
                                      {"role": "user", "content": message}]
    extra = {"api_base": api_base, "api_key": "no-key"} if api_base else {}
    for _ in range(max_steps):
        response = litellm.completion(model=model, messages=messages, tools=context["tools"],
                                      **extra)
        reply = response.choices[0].message
        calls = reply.tool_calls or []
        if not calls:
            return str(reply.content or "")
        messages.append({"role": "assistant", "content": reply.content,
                         "tool_calls": [c.model_dump() for c in calls]})
        for call in calls:
            # The call's id is the write's Idempotency-Key: a call run again
            # (a retry after a timeout) is written once.
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": executor.run_json(call.function.name,
                                                          call.function.arguments,
                                                          call_id=call.id)})
    raise RuntimeError(f"no answer after {max_steps} tool steps")


class Remote:
    """The four calls the tool executor makes on a memory, sent to the server.

    The server records the actor itself (``agent``: the key is an agent's),
    so it is not sent.  Refusals
    come back as the errors :class:`~kairos.memory.Memory` raises, which the
    executor turns into the tool call's ``"error"``.
    """

    def __init__(self, client: Client):
        self.client = client

    def read(self, agent: str, file: str, *, user: str | None = None,
             as_of: str | None = None) -> ReadResult:
        return self.client.read(agent, file, user=user, as_of=as_of)

    def write(self, agent: str, file: str, text: str, *, user: str | None = None,
              mode: str = "append", actor: str = "agent", session: str | None = None,
              idempotency_key: str | None = None) -> WriteResult:
        return self.client.write(agent, file, text, user=user, mode=mode, session=session,
                                 idempotency_key=idempotency_key)

    def retract(self, agent: str, file: str, event_ids: list[str], *, reason: str,
                user: str | None = None, actor: str = "agent",
                session: str | None = None) -> WriteResult:
        return self.client.retract(agent, file, event_ids, reason=reason, user=user,
                                   session=session)

    def search(self, agent: str, query: str, *, user: str | None = None,
               limit: int = 10) -> Found:
        return Found(self.client.search(agent, query, user=user, limit=limit))


class Found(dict[str, Any]):
    """A search's JSON, as the executor takes a search result."""

    def to_dict(self) -> dict[str, Any]:
        return dict(self)


def main() -> None:
    parser = argparse.ArgumentParser(description="One agent turn, its memory over HTTP.")
    parser.add_argument("agent")
    parser.add_argument("user")
    parser.add_argument("message")
    parser.add_argument("--model", required=True, help="a litellm model name")
    parser.add_argument("--api-base", help="the model server (an OpenAI-compatible URL)")
    parser.add_argument("--session", help="the session id the writes are recorded with")
    parser.add_argument("--url", default=os.environ.get("KAIROS_URL", "http://127.0.0.1:8420"),
                        help="kairos serve (default: $KAIROS_URL, else http://127.0.0.1:8420)")
    args = parser.parse_args()
    key = os.environ.get("KAIROS_KEY")
    if not key:
        parser.error("set KAIROS_KEY to an agent key (kairos keys create --role agent …)")
    with Client(args.url, key) as memory:
        print(run_turn(memory, args.agent, args.user, args.message, model=args.model,
                       api_base=args.api_base, session=args.session))


if __name__ == "__main__":
    main()

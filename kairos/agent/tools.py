"""Memory tools for a model: schemas in function-calling form, and the
executor that runs a model's tool calls inside one agent+user scope.

The schemas are the OpenAI-style ``{"type": "function", "function": {...}}``
that litellm and most APIs take.  The executor decides the scope, never the
model: whatever the arguments say, a call reaches the agent's own files and
the current user's files, nothing else.  An unknown file, a path, an extra
argument such as another ``user`` id, or a bad value gives a tool error (a
result with ``"error"``), and nothing is written.  Writes are ordinary memory
events with actor ``agent`` and the session id.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from kairos.domain.files import file_spec
from kairos.errors import BadInput, KairosError, WriteIncomplete, a_kind
from kairos.ports import MemoryFiles

FILE_HELP = ("One of SOUL.md (your identity), ABOUT.md (your profile), TOOLS.md (your tool "
             "notes), USER.md (the user's profile), MEMORY.md (long-term memory about the "
             "user), or a topic file topics/<name>.md.")

MEMORY_TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "memory_read",
        "description": "Read one of your memory files.",
        "parameters": {"type": "object", "properties": {
            "file": {"type": "string", "description": FILE_HELP}},
            "required": ["file"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "memory_write",
        "description": "Save to a memory file: append a line (default) or replace the whole file.",
        "parameters": {"type": "object", "properties": {
            "file": {"type": "string", "description": FILE_HELP},
            "text": {"type": "string", "description": "What to save."},
            "mode": {"type": "string", "enum": ["append", "replace"],
                     "description": "append (default) adds a line; replace sets the file."}},
            "required": ["file", "text"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "memory_search",
        "description": "Search your memory files and their history by words and meaning, best "
                       "first; each result has its text, file, where it is (current, topic or "
                       "history), when it was recorded and the ids of its events.",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string",
                      "description": "What to look for: words or a question."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50,
                      "description": "At most this many results (default 10; 1 to 50, a value "
                                     "outside is taken as the nearest)."}},
            "required": ["query"], "additionalProperties": False}}},
    {"type": "function", "function": {
        "name": "memory_retract",
        "description": "Withdraw earlier writes to a file (by event id) that were wrong; "
                       "history keeps them.",
        "parameters": {"type": "object", "properties": {
            "file": {"type": "string", "description": FILE_HELP},
            "event_ids": {"type": "array", "items": {"type": "string"},
                          "description": "The ids of the writes to withdraw."},
            "reason": {"type": "string", "description": "Why."}},
            "required": ["file", "event_ids", "reason"], "additionalProperties": False}}},
]
TOOL_NAMES = tuple(t["function"]["name"] for t in MEMORY_TOOLS)
_TYPES = {"string": str, "integer": int, "array": list}


class ToolError(KairosError):
    """A model's tool call was refused (it comes back as the call's error)."""


def _check_arguments(name: str, arguments: Any) -> dict[str, Any]:
    schema = next(t["function"]["parameters"] for t in MEMORY_TOOLS
                  if t["function"]["name"] == name)
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except (ValueError, RecursionError):  # nested past the parser's depth: hostile
            raise ToolError("arguments are not valid JSON") from None
    if not isinstance(arguments, dict):
        raise ToolError("arguments must be a JSON object")
    for key in arguments:
        if key not in schema["properties"]:
            hint = (": the scope is fixed by the session; you can reach only your own files "
                    "and the current user's") if key in ("agent", "user", "agent_id",
                                                         "user_id", "scope") else ""
            raise ToolError(f"unexpected argument {key!r}{hint}")
    for key in schema["required"]:
        if key not in arguments:
            raise ToolError(f"missing argument {key!r}")
    for key, value in arguments.items():
        expected = _TYPES[schema["properties"][key]["type"]]
        if not isinstance(value, expected) or isinstance(value, bool):
            raise ToolError(f"argument {key!r} must be {a_kind(schema['properties'][key]['type'])}")
        enum = schema["properties"][key].get("enum")
        if enum and value not in enum:
            raise ToolError(f"argument {key!r} must be one of {', '.join(enum)}")
    return arguments


class ToolExecutor:
    """Runs memory tool calls for one agent and (optionally) one user."""

    def __init__(self, memory: MemoryFiles, agent: str, user: str | None = None,
                 session: str | None = None):
        self.memory, self.agent, self.user, self.session = memory, agent, user, session

    def _user_for(self, file: str) -> str | None:
        spec = file_spec(file)
        if spec.scope == "agent":
            return None
        if self.user is None:
            raise ToolError(f"{spec.name} belongs to a user, and this session has none")
        return self.user

    def run(self, name: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
        """Run one call; a result dict, with ``"error"`` when the call was refused.

        ``call_id``: the tool call's id, when the runtime has one: a write
        records it as its idempotency key, so the same call run again (a
        retry after a timeout) returns the first run's result and writes
        nothing.  A write saved whose log entry failed answers ``"error"``
        with ``"saved": true`` and the event id.
        """
        try:
            if name not in TOOL_NAMES:
                raise ToolError(f"unknown tool {name!r}")
            args = _check_arguments(name, arguments)
            if name == "memory_write":
                return self._memory_write(**args, key=call_id)
            handlers: dict[str, Callable[..., dict[str, Any]]] = {
                "memory_read": self._memory_read, "memory_search": self._memory_search,
                "memory_retract": self._memory_retract,
            }
            return handlers[name](**args)
        except WriteIncomplete as e:
            return {"error": str(e), "saved": True, "event_id": e.event_id,
                    "position": e.position}
        except KairosError as e:
            return {"error": str(e)}

    def run_json(self, name: str, arguments: Any, call_id: str | None = None) -> str:
        return json.dumps(self.run(name, arguments, call_id), ensure_ascii=False)

    def _memory_read(self, file: str) -> dict[str, Any]:
        result = self.memory.read(self.agent, file, user=self._user_for(file))
        out = {"file": result.file, "exists": result.exists, "content": result.content or "",
               "size": result.size, "limit": result.limit}
        if not result.exists:
            out["note"] = f"{result.file} is empty: nothing was saved there yet."
        elif result.over_limit:
            out["note"] = (f"{result.file} is {result.size} characters, over its limit of "
                           f"{result.limit}: compress it — merge duplicates, drop what is stale, "
                           "and save the result with memory_write mode=replace.")
        return out

    def _memory_write(self, file: str, text: str, mode: str = "append",
                      key: str | None = None) -> dict[str, Any]:
        result = self.memory.write(self.agent, file, text, user=self._user_for(file), mode=mode,
                                   actor="agent", session=self.session, idempotency_key=key)
        out = {"saved": True, "event_id": result.event_id, "file": result.file,
               "size": result.size, "limit": result.limit}
        if result.over_limit:
            out["note"] = (f"{result.file} is now over its limit of {result.limit} "
                           "characters: compress it soon.")
        return out

    def _memory_search(self, query: str, limit: int = 10) -> dict[str, Any]:
        found = self.memory.search(self.agent, query, user=self.user,
                                   limit=max(1, min(limit, 50)))
        return found.to_dict()

    def _memory_retract(self, file: str, event_ids: list[str], reason: str) -> dict[str, Any]:
        if not all(isinstance(e, str) for e in event_ids):
            raise ToolError("event_ids must be strings")
        result = self.memory.retract(self.agent, file, event_ids, user=self._user_for(file),
                                     reason=reason, actor="agent", session=self.session)
        return {"retracted": event_ids, "event_id": result.event_id}


def describe(tools: list[dict[str, Any]]) -> str:
    """The auto-generated description of tools, for the system prompt."""
    parts = []
    for tool in tools:
        fn = tool["function"]
        lines = [f"### {fn['name']}", "", fn.get("description", "").strip()]
        params = fn.get("parameters", {})
        required = set(params.get("required", []))
        props = params.get("properties", {})
        if props:
            lines += ["", "Parameters:"]
            for pname, p in props.items():
                kind = p.get("type", "any")
                if kind == "array":
                    kind = f"array of {p.get('items', {}).get('type', 'any')}"
                need = "required" if pname in required else "optional"
                choices = f" One of: {', '.join(p['enum'])}." if p.get("enum") else ""
                lines.append(f"- {pname} ({kind}, {need}): {p.get('description', '')}{choices}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def load_tools(path: str) -> list[dict[str, Any]]:
    """Tool definitions from a JSON file: a list, or {"tools": [...]}, in the
    same function-calling form.

    :raises KairosError: (bad input) when the file is missing or malformed.
    """
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"cannot read tools from {path}: {e}") from None
    tools = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(tools, list):
        raise BadInput(f"{path}: expected a list of tools or {{\"tools\": [...]}}")
    for t in tools:
        fn = t.get("function") if isinstance(t, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise BadInput(f"{path}: each tool must be {{\"type\": \"function\", "
                           "\"function\": {\"name\": …, \"parameters\": …}}")
        if fn["name"] in TOOL_NAMES:
            raise BadInput(f"{path}: {fn['name']} is a Kairos memory tool already")
    return tools


__all__ = ["MEMORY_TOOLS", "ToolExecutor", "describe", "load_tools"]

"""The memory tools over MCP (stdio), with the official ``mcp`` SDK.

``kairos mcp --agent A --user U`` serves memory_read, memory_write,
memory_search and memory_retract to any MCP client (a coding assistant, a
desktop app).  The scope is fixed when the server starts: every call goes
through :class:`~kairos.agent.tools.ToolExecutor` for that agent and user, so no
argument can reach another pair.  A refused call is an MCP tool error
(``isError``), with the reason as its text.

Each ``tools/call`` passes an idempotency key to the executor: the caller's
own, when its ``_meta`` carries ``idempotency_key`` (stable across
reconnects: a client that retries a call after a lost connection sends the
same), else this server session's id with the JSON-RPC request id — unique
per session, so two sessions numbering their requests from 1 never collide,
and a request delivered twice is written once.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from kairos.agent.tools import MEMORY_TOOLS, ToolError, ToolExecutor


def build_server(executor: ToolExecutor | Callable[[Any], ToolExecutor]) -> Any:
    """The MCP server of the memory tools.  ``executor``: the one scope's
    (stdio), or how to find a request's from its context (over HTTP,
    :mod:`kairos.http.mcp`: from the caller's key, never from arguments);
    it may raise :class:`ToolError`, which the call returns as its error."""
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server

    def executor_for(ctx: Any) -> ToolExecutor:
        return executor if isinstance(executor, ToolExecutor) else executor(ctx)

    tools = [types.Tool(name=t["function"]["name"], description=t["function"]["description"],
                        input_schema=t["function"]["parameters"]) for t in MEMORY_TOOLS]

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    session = uuid.uuid4().hex[:12]

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        meta: dict[str, Any] = dict(params.meta) if params.meta is not None else {}
        key = meta.get("idempotency_key")
        if not isinstance(key, str):
            request = getattr(ctx, "request_id", None)
            http = getattr(ctx, "request", None)  # over HTTP: the session's own id
            sid = (http.headers.get("mcp-session-id") if http is not None else None) or session
            key = None if request is None else f"mcp-{sid}-{request}"
        try:
            run = executor_for(ctx)
        except ToolError as e:
            result: dict[str, Any] = {"error": str(e)}
        else:
            result = await anyio.to_thread.run_sync(
                lambda: run.run(params.name, params.arguments or {}, call_id=key))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(result, ensure_ascii=False))],
            structured_content=result, is_error="error" in result)

    return Server("kairos", version="0.1.0",
                  instructions="Memory tools of one agent and one user, backed by Kairos.",
                  on_list_tools=list_tools, on_call_tool=call_tool)


def serve(executor: ToolExecutor) -> None:
    """Serve over stdin/stdout until the client disconnects."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(executor)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)

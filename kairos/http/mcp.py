"""MCP over HTTP at ``/mcp``: the memory tools through the official SDK's
streamable HTTP transport, for the agent and user the caller's key names.

The scope comes from the key, never from a tool's arguments: an agent key
reaches its agent (and its user, when it is bound to one).  A key not bound
to a user names the session's user in the ``X-Kairos-User`` header; an
admin key names the agent too (``X-Kairos-Agent``); ``X-Kairos-Session``
names the agent's session, which its writes record.  Requests without a
live key get 401 before the transport sees them; keys of other roles 403.
A tool call's idempotency key is the client's ``_meta.idempotency_key`` or
the MCP session id with the request id: a call delivered twice is written
once.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from kairos.access.keys import ApiKey, Keys
from kairos.agent.mcp_server import build_server
from kairos.agent.tools import ToolError, ToolExecutor
from kairos.domain.ids import check_id
from kairos.errors import BadInput
from kairos.http.common import error, log_access, token_of
from kairos.http.metrics import Metrics
from kairos.memory import Memory


def scope_of(key: ApiKey, headers: Any) -> tuple[str, str | None]:
    """(agent, user) a key reaches in an MCP session.

    :raises BadInput: the key is not an agent's (or admin's), or the
        session names a scope the key does not reach.
    """
    if key.role not in ("agent", "admin"):
        raise BadInput(f"a {key.role} key cannot use the memory tools")
    agent = key.agent or headers.get("x-kairos-agent")
    if agent is None:
        raise BadInput("an admin key names the agent in the X-Kairos-Agent header")
    if key.agent is not None and headers.get("x-kairos-agent") not in (None, key.agent):
        raise BadInput(f"this key reaches agent {key.agent!r} only")
    named = headers.get("x-kairos-user")
    if key.user is not None and named not in (None, key.user):
        raise BadInput(f"this key reaches user {key.user!r} only")
    user = key.user or named
    check_id(agent, "agent")
    if user is not None:
        check_id(user, "user")
    return agent, user


class MCPEndpoint:
    """The ``/mcp`` ASGI endpoint: the key checked, then the SDK's session
    manager (which :meth:`running` keeps alive while the server runs)."""

    def __init__(self, memory: Memory, keys: Keys, metrics: Metrics):
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

        self.keys, self.metrics = keys, metrics

        def executor(ctx: Any) -> ToolExecutor:
            request = getattr(ctx, "request", None)
            if request is None:
                raise ToolError("no HTTP request behind this call")
            key = keys.authenticate(token_of(request.headers) or "")
            if key is None:
                raise ToolError("the API key is unknown, revoked or expired")
            try:
                agent, user = scope_of(key, request.headers)
            except BadInput as e:
                raise ToolError(str(e)) from None
            return ToolExecutor(memory, agent, user, request.headers.get("x-kairos-session"))

        self.manager = StreamableHTTPSessionManager(app=build_server(executor))

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.concurrency import run_in_threadpool

        started = time.perf_counter()
        status = [0]

        async def sent(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        request = Request(scope, receive)
        key = await run_in_threadpool(self.keys.authenticate, token_of(request.headers) or "")
        try:
            if key is None:
                await error(401, "unauthorized",
                            "no live API key: send Authorization: Bearer kk_…")(scope, receive, sent)
                return
            try:
                scope_of(key, request.headers)
            except BadInput as e:
                await error(403, "forbidden", str(e))(scope, receive, sent)
                return
            await self.manager.handle_request(scope, receive, sent)
        finally:
            seconds = time.perf_counter() - started
            log_access(request.method, "/mcp", None, key.key_id if key else None, status[0],
                       seconds)
            self.metrics.observe("/mcp", request.method, status[0], seconds)


__all__ = ["MCPEndpoint", "scope_of"]

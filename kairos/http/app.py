"""The ASGI application of ``kairos serve`` (Starlette), over one open home.

Every ``/v1`` request:

1. names a key (``Authorization: Bearer kk_…``): none, or one that is
   malformed, unknown, revoked or expired → 401;
2. is an endpoint its role may call, within its scope (its agent, its
   user) → else 403, and nothing is read or written;
3. has a body of at most ``[serve] max_body`` bytes (→ 413; 1 MiB by
   default), which is one JSON object (→ 400 with the parser's reason),
   and headers of at most 16 KiB in all (→ 431);
4. runs its handler in a worker thread (the engine's calls block on fsync),
   and any Kairos error becomes its status: bad input 400, not found 404,
   storage 503.

Every error is ``{"error": {"code": …, "message": …}}`` with a stable code.
CORS is off unless ``[serve] cors_origins`` names the browsers' origins.
``/health`` answers while the process lives; ``/ready`` once the home
answers a query; ``/openapi.json`` documents the endpoints from the same
table that routes them (:mod:`kairos.http.api`); ``/metrics`` is in
Prometheus's format (:mod:`kairos.http.metrics`).  Those four need no key
and hold no memory content.  The access log
(logger ``kairos.access``) names the route, the key id, the status and the
time taken, never a query string or a body: memory content stays out of it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from kairos.access.keys import ApiKey, Keys
from kairos.errors import BadInput, KairosError, NotFound, StorageFailed, WriteIncomplete
from kairos.http.api import ENDPOINTS, Call, Endpoint
from kairos.http.common import error, log_access, token_of
from kairos.http.mcp import MCPEndpoint
from kairos.http.metrics import CONTENT_TYPE_LATEST, Metrics
from kairos.http.openapi import document
from kairos.memory import Memory


class HTTPError(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _status_of(e: KairosError) -> tuple[int, str]:
    if isinstance(e, NotFound):
        return 404, "not_found"
    if isinstance(e, BadInput):
        return 400, "bad_input"
    if isinstance(e, StorageFailed):
        return 503, "storage_unavailable"
    if isinstance(e, WriteIncomplete):  # committed, its log entry not: the message names it
        return 503, "write_incomplete"
    return 409, "conflict"


async def _body(request: Request, limit: int) -> dict[str, Any]:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise HTTPError(413, "body_too_large", f"the body is over {limit} bytes")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise HTTPError(413, "body_too_large", f"the body is over {limit} bytes")
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise HTTPError(400, "malformed_json", f"malformed JSON: {str(e).splitlines()[0]}"
                        ) from None
    if not isinstance(body, dict):
        raise HTTPError(400, "malformed_json", "the body must be a JSON object")
    return body


def authorize(memory: Memory, ep: Endpoint, key: ApiKey, call: Call) -> None:
    """Refuse (403) what the key's role or scope does not reach; narrow a
    listing to the key's agent and user."""
    if key.role != "admin" and key.role not in ep.roles:
        raise HTTPError(403, "forbidden",
                        f"{'an' if key.role[0] in 'aeiou' else 'a'} {key.role} key may not call "
                        f"{ep.method} {ep.path}")
    agent, user = None, call.text("user")
    if ep.scope == "agent":
        agent = call.path["agent"]
    elif ep.scope == "dream":
        # One answer for no event, an event that is no dream, and a dream
        # outside the key's scope: event ids can be computed, and a scoped
        # key must not learn which pairs exist elsewhere.
        missing = NotFound(f"no dream {call.path['dream_id']}")
        try:
            row = memory.event(call.path["dream_id"])
        except NotFound:
            raise missing from None
        agent, user = row["agent_id"], row["user_id"]
        if row["type"] != "DreamProposed" or (key.agent is not None and agent != key.agent) or (
                key.user is not None and user != key.user):
            raise missing
    elif ep.path == "/v1/verify":
        if key.agent is not None or key.user is not None:
            raise HTTPError(403, "forbidden", "verify checks the whole home: it needs a key "
                            "bound to no agent or user")
        return
    else:  # a listing: the key's scope narrows it
        for name, bound in (("agent", key.agent), ("user", key.user)):
            if bound is not None and call.text(name) is None:
                call.query[name] = bound
        agent = call.text("agent")
        user = call.text("user")
    if key.agent is not None and agent != key.agent:
        raise HTTPError(403, "forbidden", f"this key reaches agent {key.agent!r} only")
    if key.user is not None and user is not None and user != key.user:
        raise HTTPError(403, "forbidden", f"this key reaches user {key.user!r} only")


def endpoint(memory: Memory, keys: Keys, metrics: Metrics, ep: Endpoint, max_body: int
             ) -> Callable[[Request], Awaitable[Response]]:
    async def run(request: Request) -> Response:
        started = time.perf_counter()
        key: ApiKey | None = None
        try:
            token = token_of(request.headers)
            if not token:
                raise HTTPError(401, "unauthorized", "no API key: send Authorization: Bearer kk_…")
            key = await run_in_threadpool(keys.authenticate, token)  # it may read the store
            if key is None:
                raise HTTPError(401, "unauthorized", "the API key is unknown, revoked or expired")
            body = await _body(request, max_body) if ep.method == "POST" else {}
            call = Call(key, dict(request.path_params), dict(request.query_params), body,
                        request.headers.get("idempotency-key"))

            def handle() -> Any:
                authorize(memory, ep, key, call)
                return ep.handler(memory, call)

            response: Response = JSONResponse(await run_in_threadpool(handle))
        except HTTPError as e:
            response = error(e.status, e.code, e.message)
        except KairosError as e:
            status, code = _status_of(e)
            response = error(status, code, str(e).splitlines()[0] if str(e) else code)
        except Exception:  # a bug: logged with its trace, never shown
            logging.getLogger("kairos").exception("%s %s failed", ep.method, ep.path)
            response = error(500, "internal", "internal error (see the server's log)")
        seconds = time.perf_counter() - started
        log_access(ep.method, ep.path, request.path_params.get("agent"),
                   key.key_id if key else None, response.status_code, seconds)
        metrics.observe(ep.path, ep.method, response.status_code, seconds, writes=ep.writes)
        return response
    return run


HEADER_LIMIT = 16 * 1024  # bytes of header names and values a request may send


class HeaderLimit:
    """Refuse a request whose headers are over :data:`HEADER_LIMIT` bytes
    (431), before any route sees it."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and sum(
                len(k) + len(v) for k, v in scope["headers"]) > HEADER_LIMIT:
            await error(431, "headers_too_large",
                        f"the headers are over {HEADER_LIMIT} bytes")(scope, receive, send)
            return
        await self.app(scope, receive, send)


def create_app(memory: Memory) -> Starlette:
    """The application over an open home (the caller closes it), with its
    ``[serve]`` settings: the body limit, and CORS for the origins named
    there (off when none are)."""
    settings = memory.settings.serve
    max_body = settings.max_body
    keys = memory.keys
    metrics = Metrics(memory)

    async def health(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def ready(_: Request) -> Response:
        try:
            position = await run_in_threadpool(memory.engine.readmodel.position)
        except KairosError as e:
            return error(503, "not_ready", str(e).splitlines()[0])
        return JSONResponse({"status": "ready", "position": position})

    spec = document(ENDPOINTS)

    async def openapi(_: Request) -> Response:
        return JSONResponse(spec)

    async def metrics_text(_: Request) -> Response:
        body = await run_in_threadpool(metrics.render)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    async def not_found(request: Request, _exc: Exception) -> Response:
        return error(404, "no_route", f"no endpoint {request.method} {request.url.path}")

    async def not_allowed(request: Request, _exc: Exception) -> Response:
        return error(405, "method_not_allowed", f"{request.method} is not allowed here")

    mcp = MCPEndpoint(memory, keys, metrics)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with mcp.running():
            yield

    routes = [Route("/health", health), Route("/ready", ready),
              Route("/openapi.json", openapi), Route("/metrics", metrics_text),
              Route("/mcp", mcp, methods=["GET", "POST", "DELETE"])]
    routes += [Route(ep.path, endpoint(memory, keys, metrics, ep, max_body), methods=[ep.method])
               for ep in ENDPOINTS]
    middleware = [Middleware(HeaderLimit)]
    if settings.cors_origins:
        middleware.append(Middleware(
            CORSMiddleware, allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key",
                           "X-Kairos-Key", "X-Kairos-User", "X-Kairos-Agent",
                           "X-Kairos-Session", "Mcp-Session-Id", "Mcp-Protocol-Version"],
            expose_headers=["Mcp-Session-Id"]))
    return Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed},
                     lifespan=lifespan, middleware=middleware)


__all__ = ["create_app"]

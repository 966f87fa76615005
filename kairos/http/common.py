"""What the REST endpoints and ``/mcp`` share: the key a request carries,
and the one shape of an error."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping

from starlette.responses import JSONResponse


def token_of(headers: Mapping[str, str]) -> str | None:
    """The API key of a request: ``Authorization: Bearer …`` or ``X-Kairos-Key``."""
    value = headers.get("authorization", "")
    if value[:7].lower() == "bearer ":
        return value[7:].strip()
    return headers.get("x-kairos-key")


def error(status: int, code: str, message: str) -> JSONResponse:
    """``{"error": {"code", "message"}}``: the code is stable, the message one line."""
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def log_access(method: str, route: str, agent: str | None, key: str | None, status: int,
               seconds: float) -> None:
    """One JSON line per request: what, by which key, how it ended, how long —
    never a query string or a body."""
    logging.getLogger("kairos.access").info(json.dumps({
        "method": method, "route": route, "agent": agent, "key": key, "status": status,
        "ms": round(seconds * 1000, 2)}))


__all__ = ["error", "log_access", "token_of"]

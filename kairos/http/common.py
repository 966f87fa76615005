"""What the REST endpoints and ``/mcp`` share: the key a request carries,
and the one shape of an error."""

from __future__ import annotations

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


__all__ = ["error", "token_of"]

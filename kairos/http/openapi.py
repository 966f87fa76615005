"""The OpenAPI document of ``kairos serve``, made from the endpoint table
(:mod:`kairos.http.api`): what is documented is what is routed."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from kairos import __version__

ERROR = {"type": "object", "properties": {"error": {"type": "object", "properties": {
    "code": {"type": "string"}, "message": {"type": "string"}}}}}
STATUSES = {"400": "bad input (a one-line reason)", "401": "no key, or not a live one",
            "403": "outside the key's role or scope", "404": "not found",
            "405": "method not allowed", "409": "a conflict (too many writers, say)",
            "413": "body too large", "431": "headers too large",
            "500": "internal error (logged on the server)",
            "503": "storage unavailable, or a write committed whose log entry is not"}


def document(endpoints: Iterable[Any]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for ep in endpoints:
        in_path = re.findall(r"{(\w+)}", ep.path)
        params = [{"name": n, "in": "path", "required": True, "schema": {"type": "string"}}
                  for n in in_path]
        op: dict[str, Any] = {
            "summary": ep.summary,
            "operationId": ep.handler.__name__.lstrip("_"),
            "x-roles": ["admin", *ep.roles],
            "security": [{"bearer": []}],
            "responses": {"200": {"description": "the result, as JSON"},
                          **{s: {"description": d, "content": {"application/json": {
                              "schema": ERROR}}} for s, d in STATUSES.items()}},
        }
        if ep.method == "GET":
            params += [{"name": n, "in": "query", "schema": {"type": "string"}}
                       for n in ep.params]
        elif ep.params:
            op["requestBody"] = {"content": {"application/json": {"schema": {
                "type": "object", "properties": {n: {} for n in ep.params}}}}}
        if ep.idempotent:
            params.append({"name": "Idempotency-Key", "in": "header",
                           "schema": {"type": "string"}})
        op["parameters"] = params
        paths.setdefault(ep.path, {})[ep.method.lower()] = op
    for path, what in (("/health", "the process is up"), ("/ready", "the home answers"),
                       ("/openapi.json", "this document"),
                       ("/metrics", "counters and gauges, in Prometheus's text format")):
        paths[path] = {"get": {"summary": what, "responses": {"200": {"description": what}}}}
    return {"openapi": "3.1.0",
            "info": {"title": "Kairos memory API", "version": __version__},
            "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
            "paths": paths}


__all__ = ["document"]

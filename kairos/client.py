"""A client of ``kairos serve``: the methods of :class:`~kairos.memory.Memory`
that a key allows, over HTTP.

    from kairos.client import Client

    with Client("http://127.0.0.1:8420", "kk_…") as memory:
        memory.write("ada", "MEMORY.md", "Sam likes tea.", user="sam")
        print(memory.search("ada", "what does Sam drink", user="sam")["results"])

Writes, reads, retractions and session ends return the same result types as
:class:`Memory` (:class:`~kairos.ports.WriteResult`,
:class:`~kairos.ports.ReadResult`); the rest return the server's JSON.  A
refusal raises what :class:`Memory` would: :class:`~kairos.errors.BadInput`
(400), :class:`~kairos.errors.NotFound` (404), and for the key
:class:`~kairos.errors.AccessDenied` (401, 403).  ``idempotency_key`` on a
write is sent as the ``Idempotency-Key`` header: retrying a write whose
answer was lost returns the original event and writes nothing.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from kairos.errors import AccessDenied, BadInput, KairosError, NotFound, StorageFailed
from kairos.ports import ReadResult, WriteResult


class Client:
    def __init__(self, url: str, key: str, *, timeout: float = 30.0):
        import socket

        import httpx

        # TCP_NODELAY: httpx writes a POST's headers and body apart, and
        # Nagle's algorithm would hold the body for the server's delayed ACK
        # (40 ms a write on Linux).
        transport = httpx.HTTPTransport(
            socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
        self._http = httpx.Client(base_url=url.rstrip("/"), timeout=timeout, transport=transport,
                                  headers={"Authorization": f"Bearer {key}"})

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _call(self, method: str, path: str, *, params: dict[str, Any] | None = None,
              body: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> Any:
        query = {k: str(v) for k, v in (params or {}).items() if v is not None}
        sent = None if body is None else {k: v for k, v in body.items() if v is not None}
        r = self._http.request(method, path, params=query, json=sent, headers=headers)
        if r.status_code == 200:
            return r.json()
        try:
            message = r.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = r.text.strip()[:200] or f"HTTP {r.status_code}"
        raise {400: BadInput, 404: NotFound, 401: AccessDenied, 403: AccessDenied,
               413: BadInput, 503: StorageFailed}.get(r.status_code, KairosError)(message)

    # -- an agent's ------------------------------------------------------------------
    def write(self, agent: str, file: str, text: str, *, user: str | None = None,
              mode: str = "append", session: str | None = None,
              idempotency_key: str | None = None) -> WriteResult:
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        return _result(WriteResult, self._call(
            "POST", f"/v1/agents/{agent}/write", headers=headers,
            body={"file": file, "text": text, "user": user, "mode": mode, "session": session}))

    def read(self, agent: str, file: str, *, user: str | None = None,
             as_of: str | None = None, version: int | None = None) -> ReadResult:
        return _result(ReadResult, self._call("GET", f"/v1/agents/{agent}/read", params={
            "file": file, "user": user, "as_of": as_of, "version": version}))

    def retract(self, agent: str, file: str, event_ids: list[str], *, reason: str,
                user: str | None = None, session: str | None = None) -> WriteResult:
        return _result(WriteResult, self._call("POST", f"/v1/agents/{agent}/retract", body={
            "file": file, "event_ids": event_ids, "reason": reason, "user": user,
            "session": session}))

    def end_session(self, agent: str, user: str, *, session: str | None = None,
                    notes: str | None = None) -> WriteResult:
        return _result(WriteResult, self._call("POST", f"/v1/agents/{agent}/sessions/end",
                                               body={"user": user, "session": session,
                                                     "notes": notes}))

    def search(self, agent: str, query: str, *, user: str | None = None, limit: int = 10,
               file: str | None = None, since: str | None = None) -> dict[str, Any]:
        return dict(self._call("GET", f"/v1/agents/{agent}/search", params={
            "q": query, "user": user, "limit": limit, "file": file, "since": since}))

    def context(self, agent: str, user: str | None = None, *,
                strategy: str | None = None) -> dict[str, Any]:
        return dict(self._call("GET", f"/v1/agents/{agent}/context",
                               params={"user": user, "strategy": strategy}))

    def tools(self, agent: str) -> list[dict[str, Any]]:
        return list(self._call("GET", f"/v1/agents/{agent}/tools")["tools"])

    def history(self, agent: str, *, user: str | None = None,
                file: str | None = None) -> list[dict[str, Any]]:
        return list(self._call("GET", f"/v1/agents/{agent}/history",
                               params={"user": user, "file": file})["events"])

    # -- a reviewer's ----------------------------------------------------------------
    def dreams(self, *, agent: str | None = None, user: str | None = None,
               pending: bool = False) -> list[dict[str, Any]]:
        return list(self._call("GET", "/v1/dreams", params={
            "agent": agent, "user": user, "status": "pending" if pending else None})["dreams"])

    def show_dream(self, dream_id: str) -> dict[str, Any]:
        return dict(self._call("GET", f"/v1/dreams/{dream_id}"))

    def approve(self, dream_id: str) -> dict[str, Any]:
        """Approve a proposal; the audit names this client's key as the reviewer."""
        return dict(self._call("POST", f"/v1/dreams/{dream_id}/approve", body={}))

    def reject(self, dream_id: str, reason: str) -> dict[str, Any]:
        return dict(self._call("POST", f"/v1/dreams/{dream_id}/reject", body={"reason": reason}))

    def rollback(self, agent: str, user: str, file: str, to: int, reason: str) -> dict[str, Any]:
        return dict(self._call("POST", f"/v1/agents/{agent}/rollback", body={
            "user": user, "file": file, "to": to, "reason": reason}))

    # -- an auditor's ----------------------------------------------------------------
    def audit(self, **filters: Any) -> list[dict[str, Any]]:
        return list(self._call("GET", "/v1/audit", params=filters)["events"])

    def trace(self, agent: str, user: str | None, file: str) -> list[dict[str, Any]]:
        return list(self._call("GET", f"/v1/agents/{agent}/trace",
                               params={"user": user, "file": file})["lines"])

    def diff(self, agent: str, user: str, file: str, old: int, new: int) -> dict[str, Any]:
        return dict(self._call("GET", f"/v1/agents/{agent}/diff", params={
            "user": user, "file": file, "old": old, "new": new}))

    def export(self, agent: str, user: str) -> dict[str, Any]:
        return dict(self._call("GET", f"/v1/agents/{agent}/export", params={"user": user}))

    def verify(self) -> dict[str, Any]:
        return dict(self._call("POST", "/v1/verify"))

    def ready(self) -> bool:
        return self._http.get("/ready").status_code == 200


T = TypeVar("T", WriteResult, ReadResult)


def _result(cls: type[T], data: dict[str, Any]) -> T:
    """The result type from its JSON (which adds derived fields: left out)."""
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


__all__ = ["Client"]
